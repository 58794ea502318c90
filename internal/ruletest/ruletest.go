// Package ruletest holds the cases on which two implementations of one
// rule must agree: the kit's (package embedkit, which the adapters and the
// middleware call) and the emulator's, which keeps its own code on purpose
// as the platform's independent implementation. Each table runs in the
// tests of both, so neither can drift from the other. It is for tests
// only.
package ruletest

// Case is one input and whether the rule accepts it.
type Case struct {
	In   string
	Want bool
	// Why says what the case is about, for a failure message.
	Why string
}

// PictureURLs are cases of the platform's picture rule
// (EmbedUserProfile.picture: an absolute http or https URL). The kit's
// own length bound (2,048 bytes) is not the platform's and is not here.
var PictureURLs = []Case{
	{"https://img.example.com/a.png", true, "https"},
	{"http://img.example.com/a.png", true, "http"},
	{"HTTPS://IMG.EXAMPLE.COM/A.PNG", true, "a scheme in capitals is still https"},
	{"https://img.example.com:8443/a.png?size=64#top", true, "port, query and fragment"},
	{"http://[::1]/a.png", true, "an IPv6 host"},
	{"https://user@img.example.com/a.png", true, "user info is part of an absolute URL"},
	{"", false, "empty"},
	{"/a.png", false, "a path without a host"},
	{"//img.example.com/a.png", false, "no scheme"},
	{"img.example.com/a.png", false, "no scheme, no slashes"},
	{"javascript:alert(1)", false, "a script URL"},
	{"data:image/png;base64,iVBORw0KGgo=", false, "a data URL"},
	{"ftp://img.example.com/a.png", false, "another scheme"},
	{"https:img.example.com/a.png", false, "opaque: no host"},
	{"https://", false, "no host"},
	{"http://:80/a.png", false, "a port without a host"},
	{"https://img example.com/a.png", false, "a space in the host"},
	{"https://img.example.com/%zz.png", false, "a malformed escape"},
}

// LoopbackHosts are cases of "this host name or address is this
// machine": localhost and names under .localhost (RFC 6761), in any case,
// and loopback addresses (127.0.0.0/8, ::1), with or without IPv6
// brackets, and no port.
var LoopbackHosts = []Case{
	{"localhost", true, "localhost"},
	{"LOCALHOST", true, "host names are case-insensitive"},
	{"emulator.localhost", true, "a name under .localhost (RFC 6761)"},
	{"Emulator.LocalHost", true, "a name under .localhost, in capitals"},
	{"127.0.0.1", true, "IPv4 loopback"},
	{"127.0.0.2", true, "all of 127.0.0.0/8 is loopback"},
	{"127.255.255.254", true, "the top of 127.0.0.0/8"},
	{"::1", true, "IPv6 loopback"},
	{"[::1]", true, "IPv6 loopback in brackets"},
	{"::ffff:127.0.0.1", true, "IPv4-mapped loopback"},
	{"", false, "empty"},
	{"localhost.example.com", false, "localhost as a label of another domain"},
	{"mylocalhost", false, "a name ending in localhost, not under it"},
	{"127.0.0.1.nip.io", false, "a name that resolves to loopback elsewhere"},
	{"10.0.0.1", false, "a private address"},
	{"0.0.0.0", false, "the unspecified IPv4 address"},
	{"::", false, "the unspecified IPv6 address"},
	{"example.com", false, "another host"},
}
