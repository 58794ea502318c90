package proxyheaders_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/proxyheaders"
)

// TestNewRefusesTrustingEveryone: New refuses trusted proxies that
// together hold every IPv4 or every IPv6 address, however the space is cut
// up, and accepts sets that leave some addresses out, however broad.
func TestNewRefusesTrustingEveryone(t *testing.T) {
	tests := []struct {
		name     string
		prefixes string // space-separated
		wantErr  string // "" accepts
	}{
		{"single v4 /0", "0.0.0.0/0", "trusts every address"},
		{"single v6 /0", "::/0", "trusts every address"},
		{"v4 /0 with host bits", "10.1.2.3/0", "trusts every address"},
		{"two v4 halves", "0.0.0.0/1 128.0.0.0/1", "together trust every IPv4 address"},
		{"two v4 halves, reversed", "128.0.0.0/1 0.0.0.0/1", "together trust every IPv4 address"},
		{"halves with host bits", "1.2.3.4/1 200.1.1.1/1", "together trust every IPv4 address"},
		{"four v4 quarters", "192.0.0.0/2 0.0.0.0/2 128.0.0.0/2 64.0.0.0/2", "together trust every IPv4 address"},
		{"overlapping v4 ranges", "0.0.0.0/1 64.0.0.0/2 128.0.0.0/2 160.0.0.0/3 192.0.0.0/2 10.0.0.0/8", "together trust every IPv4 address"},
		{"uneven v4 cut", "0.0.0.0/1 128.0.0.0/2 192.0.0.0/3 224.0.0.0/4 240.0.0.0/4", "together trust every IPv4 address"},
		{"v4 with a redundant host", "0.0.0.0/1 128.0.0.0/2 192.0.0.0/3 224.0.0.0/4 240.0.0.0/5 248.0.0.0/5 255.255.255.255/32", "together trust every IPv4 address"},
		{"duplicates", "0.0.0.0/1 0.0.0.0/1 128.0.0.0/1 128.0.0.0/1", "together trust every IPv4 address"},
		{"two v6 halves", "::/1 8000::/1", "together trust every IPv6 address"},
		{"v6 halves beside a realistic v4", "10.0.0.0/8 8000::/1 ::/1", "together trust every IPv6 address"},
		{"four v6 quarters", "::/2 4000::/2 8000::/2 c000::/2", "together trust every IPv6 address"},
		{"ipv4-mapped /96", "::ffff:0.0.0.0/96", "trusts every address"},
		{"ipv4-mapped halves", "::ffff:0.0.0.0/97 ::ffff:128.0.0.0/97", "together trust every IPv4 address"},
		{"mapped and plain halves", "::ffff:0.0.0.0/97 128.0.0.0/1", "together trust every IPv4 address"},
		{"both families by halves", "0.0.0.0/1 ::/1 128.0.0.0/1 8000::/1", "together trust every IPv4 address and every IPv6 address"},

		{"realistic private ranges", "10.0.0.0/8 192.168.0.0/16", ""},
		{"realistic v4 and v6", "10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fd00::/8 ::1/128 127.0.0.1/32", ""},
		{"one v4 half", "0.0.0.0/1", ""},
		{"one v6 half", "8000::/1", ""},
		{"v4 all but the top /8", "0.0.0.0/1 128.0.0.0/2 192.0.0.0/3 224.0.0.0/4 240.0.0.0/5 248.0.0.0/6 252.0.0.0/7 254.0.0.0/8", ""},
		{"three v4 quarters", "0.0.0.0/2 64.0.0.0/2 192.0.0.0/2", ""},
		{"halves of both families, each short", "0.0.0.0/1 ::/1", ""},
		{"v4 halves as v6 (not mapped)", "::/97 ::128.0.0.0/97", ""},
		{"mapped half", "::ffff:0.0.0.0/97", ""},
		{"ipv4-mapped proxy", "::ffff:10.0.0.0/104", ""},
		// Mapped addresses are matched as IPv4, against IPv4 prefixes and
		// mapped prefixes of 96 bits or more: a shorter IPv6 prefix that
		// holds the mapped range trusts no IPv4 client.
		{"v6 prefix holding the mapped range", "::/8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []netip.Prefix
			for _, s := range strings.Fields(tt.prefixes) {
				ps = append(ps, netip.MustParsePrefix(s))
			}
			_, err := proxyheaders.New(proxyheaders.Config{TrustedProxies: ps})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("New(%s) = %v, want success", tt.prefixes, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("New(%s) = %v, want an error holding %q", tt.prefixes, err, tt.wantErr)
			}
		})
	}
}

// complement returns the prefixes that hold every address of p's family
// but p's: at each bit of p, the sibling of the path to it.
func complement(p netip.Prefix) []netip.Prefix {
	var ps []netip.Prefix
	for bits := 1; bits <= p.Bits(); bits++ {
		a := netip.PrefixFrom(p.Addr(), bits).Masked().Addr().AsSlice()
		a[(bits-1)/8] ^= 0x80 >> ((bits - 1) % 8)
		sib, _ := netip.AddrFromSlice(a)
		ps = append(ps, netip.PrefixFrom(sib, bits))
	}
	return ps
}

// TestNewCoverageIsExact: every address but one is accepted; adding the
// one is refused, wherever it lies. IPv4-mapped addresses are matched as
// IPv4, so IPv6 prefixes that hold every other IPv6 address trust every
// IPv6 client.
func TestNewCoverageIsExact(t *testing.T) {
	for _, hole := range []string{"0.0.0.0/32", "203.0.113.7/32", "255.255.255.255/32", "::/128", "2001:db8::1/128", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", "::ffff:0:0/96"} {
		hp := netip.MustParsePrefix(hole)
		ps := complement(hp)
		_, err := proxyheaders.New(proxyheaders.Config{TrustedProxies: ps})
		if hp == netip.MustParsePrefix("::ffff:0:0/96") {
			if err == nil || !strings.Contains(err.Error(), "every IPv6 address") {
				t.Errorf("New(every IPv6 address but the mapped range) = %v, want refusal", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(every address but %s) = %v, want success", hole, err)
		}
		if _, err := proxyheaders.New(proxyheaders.Config{TrustedProxies: append(ps, hp)}); err == nil {
			t.Errorf("New(every address but %s, then %s) succeeded, want refusal", hole, hole)
		}
	}
	// Every IPv6 address but the mapped range and one more is accepted.
	ps := complement(netip.MustParsePrefix("::ffff:0:0/96"))
	ps[len(ps)-1] = netip.PrefixFrom(ps[len(ps)-1].Addr(), 128)
	if _, err := proxyheaders.New(proxyheaders.Config{TrustedProxies: ps}); err != nil {
		t.Errorf("New(all but the mapped range and more) = %v, want success", err)
	}
}

// TestMappedProxyTrusted: a proxy configured by its IPv4-mapped prefix is
// trusted whether its RemoteAddr is written as IPv4 or IPv4-mapped IPv6.
func TestMappedProxyTrusted(t *testing.T) {
	id, _ := newIdentity(t, func(c *proxyheaders.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("::ffff:10.0.0.0/104")}
	})
	for _, remote := range []string{"10.1.2.3:1", "[::ffff:10.1.2.3]:1"} {
		v, err := id.Viewer(request(t, remote, [2]string{"X-Forwarded-User", "jane"}))
		if err != nil || v.Subject != "jane" {
			t.Errorf("Viewer from %s = %+v, %v; want jane", remote, v, err)
		}
	}
	if _, err := id.Viewer(request(t, "11.1.2.3:1", [2]string{"X-Forwarded-User", "jane"})); err == nil {
		t.Error("Viewer from 11.1.2.3 succeeded")
	}

	// An IPv6 prefix shorter than /96 that holds the mapped range trusts
	// no IPv4 client, in either spelling.
	id, _ = newIdentity(t, func(c *proxyheaders.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("::/8")}
	})
	for _, remote := range []string{"10.1.2.3:1", "[::ffff:10.1.2.3]:1"} {
		if v, err := id.Viewer(request(t, remote, [2]string{"X-Forwarded-User", "jane"})); err == nil {
			t.Errorf("Viewer from %s with ::/8 trusted = %+v; want ErrNoViewer", remote, v)
		}
	}
}
