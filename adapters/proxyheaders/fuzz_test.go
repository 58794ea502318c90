package proxyheaders_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/proxyheaders"
)

// FuzzNewTrustedProxies checks New's refusal of trusted proxies that trust
// everyone against a second, slower reckoning: halving the address space
// until each half lies in one prefix or in none. The input is a list of
// prefixes separated by spaces or commas; unparsable ones are dropped.
func FuzzNewTrustedProxies(f *testing.F) {
	for _, s := range []string{
		"10.0.0.0/8 192.168.0.0/16",
		"0.0.0.0/1 128.0.0.0/1",
		"::/1 8000::/1",
		"::ffff:0.0.0.0/97,::ffff:128.0.0.0/97",
		"0.0.0.0/2 64.0.0.0/2 128.0.0.0/2 192.0.0.0/3 224.0.0.0/3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		var ps []netip.Prefix
		for _, s := range strings.FieldsFunc(list, func(r rune) bool { return r == ' ' || r == ',' }) {
			if p, err := netip.ParsePrefix(s); err == nil {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			return
		}
		all4, all6 := oracle(ps)
		_, err := proxyheaders.New(proxyheaders.Config{TrustedProxies: ps})
		if (err != nil) != (all4 || all6) {
			t.Fatalf("New(%v) = %v; every IPv4 address trusted: %v, every IPv6 address: %v", ps, err, all4, all6)
		}
	})
}

// oracle reports whether ps trust every IPv4 and every IPv6 client, by
// halving. Remote addresses are matched unmapped, so an IPv4 client is
// trusted by an IPv4 prefix or by an IPv4-mapped prefix of 96 bits or
// more, and an IPv6 client never comes from the mapped range.
func oracle(ps []netip.Prefix) (all4, all6 bool) {
	mapped := netip.MustParsePrefix("::ffff:0:0/96")
	var for4, for6 []netip.Prefix
	for _, p := range ps {
		p = p.Masked()
		a := p.Addr()
		switch {
		case a.Is4():
			for4 = append(for4, netip.PrefixFrom(netip.AddrFrom16(a.As16()), p.Bits()+96))
		case p.Bits() >= 96 && mapped.Contains(a):
			for4 = append(for4, p)
			for6 = append(for6, p)
		default:
			for6 = append(for6, p)
		}
	}
	for6 = append(for6, mapped)
	return coveredBy(mapped, for4), coveredBy(netip.MustParsePrefix("::/0"), for6)
}

// coveredBy reports whether every address of the IPv6 prefix r lies in
// one of the IPv6 prefixes ps.
func coveredBy(r netip.Prefix, ps []netip.Prefix) bool {
	var inside []netip.Prefix
	for _, p := range ps {
		if p.Bits() <= r.Bits() && p.Contains(r.Addr()) {
			return true
		}
		if p.Overlaps(r) {
			inside = append(inside, p)
		}
	}
	if len(inside) == 0 || r.Bits() == 128 {
		return false
	}
	hi := r.Addr().As16()
	hi[r.Bits()/8] |= 0x80 >> (r.Bits() % 8)
	return coveredBy(netip.PrefixFrom(r.Addr(), r.Bits()+1), inside) &&
		coveredBy(netip.PrefixFrom(netip.AddrFrom16(hi), r.Bits()+1), inside)
}
