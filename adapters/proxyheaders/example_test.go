package proxyheaders_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/embedkit/embedkit/adapters/proxyheaders"
)

func Example() {
	id, err := proxyheaders.New(proxyheaders.Config{
		// The authenticating proxy's address range; nobody else may set
		// the headers.
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	r := httptest.NewRequest("GET", "/dash/1", nil)
	r.RemoteAddr = "10.20.3.4:41000"
	r.Header.Set("X-Forwarded-User", "jane")
	r.Header.Set("X-Forwarded-Email", "jane@example.com")
	r.Header.Set("X-Forwarded-Groups", "sales,emea")
	v, err := id.Viewer(r)
	fmt.Println(v.Subject, v.Email, v.Groups, err)

	r.RemoteAddr = "198.51.100.7:41000" // a client talking to the app directly
	_, err = id.Viewer(r)
	fmt.Println(err)
	// Output:
	// jane jane@example.com [sales emea] <nil>
	// middleware: no logged-in viewer
}

// ForwardedOrigin in front of the kit: requests from the proxy, which
// terminates TLS, get the https origin it names in X-Forwarded-Proto.
func ExampleIdentity_ForwardedOrigin() {
	id, err := proxyheaders.New(proxyheaders.Config{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux() // mux.Handle("/embed/frame/", kit.FrameHandler()), ...
	handler := id.ForwardedOrigin(mux)
	_ = handler // http.ListenAndServe(":8080", handler)
}
