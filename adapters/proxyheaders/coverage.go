package proxyheaders

import (
	"cmp"
	"net/netip"
	"slices"
)

// mapped4 is the IPv4-mapped IPv6 range, ::ffff:0.0.0.0/96.
var mapped4 = netip.MustParsePrefix("::ffff:0.0.0.0/96")

// normalizePrefix returns p masked, with an IPv4-mapped IPv6 prefix of 96
// bits or more written as the IPv4 prefix it names (::ffff:10.0.0.0/104 is
// 10.0.0.0/8). Remote addresses are unmapped before they are matched, so
// this is the form that can match them.
func normalizePrefix(p netip.Prefix) netip.Prefix {
	p = p.Masked()
	if p.Bits() >= 96 && p.Addr().Is4In6() {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p
}

// trustsEveryone reports whether the union of ps, normalized prefixes,
// holds every IPv4 address, and whether it holds every IPv6 address that a
// client can come from: IPv4-mapped addresses are matched as IPv4, so the
// IPv6 prefixes need not cover ::ffff:0.0.0.0/96 to trust every IPv6
// client. Covering nearly everything is not covering everything: a single
// /1 is not reported.
func trustsEveryone(ps []netip.Prefix) (all4, all6 bool) {
	var v4, v6 []netip.Prefix
	for _, p := range ps {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	v6 = append(v6, mapped4)
	return covers(v4, netip.IPv4Unspecified()), covers(v6, netip.IPv6Unspecified())
}

// covers reports whether the masked prefixes ps, all of first's family,
// hold every address from first, the family's lowest address, to the
// family's highest. It sorts ps and sweeps them, merging ranges.
func covers(ps []netip.Prefix, first netip.Addr) bool {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b netip.Prefix) int {
		return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
	})
	next := first // the lowest address not yet known to be held
	for _, p := range ps {
		if next.Less(p.Addr()) {
			return false // nothing holds next: p and all later start above it
		}
		if last := lastAddr(p); next.Compare(last) <= 0 {
			next = last.Next()
			if !next.IsValid() {
				return true // last was the family's highest address
			}
		}
	}
	return false
}

// lastAddr returns the highest address of the masked prefix p.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As16()
	bits := p.Bits()
	if p.Addr().Is4() {
		bits += 96
	}
	for i := bits; i < 128; i++ {
		a[i/8] |= 0x80 >> (i % 8)
	}
	last := netip.AddrFrom16(a)
	if p.Addr().Is4() {
		last = last.Unmap()
	}
	return last
}
