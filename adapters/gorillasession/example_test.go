package gorillasession_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

func Example() {
	// SESSION_KEYS holds base64 keys, newest first: hash[:block],...
	keys, err := gorillasession.KeysFromEnv(os.Getenv("SESSION_KEYS"))
	if err != nil {
		log.Fatal(err)
	}
	store := gorillasession.SecureCookieStore(keys...)
	id := gorillasession.New(store, "host-session")
	id.EndedLogins = gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth/callback", func(w http.ResponseWriter, r *http.Request) {
		// ... verify the login, then:
		if err := id.Save(w, r, &middleware.Viewer{Subject: "jane", Email: "jane@example.com"}); err != nil {
			http.Error(w, "your account carries too much data to sign in", http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	// id is the kit's Identity; id.SessionStore() its SessionStore.
	log.Fatal(http.ListenAndServe(":8080", mux))
}

func ExampleIdentity_Viewer() {
	id := gorillasession.New(gorillasession.SecureCookieStore([]byte("an example hash key, 32 bytes!!!")), "host-session")

	login := httptest.NewRecorder()
	if err := id.Save(login, httptest.NewRequest("GET", "/auth/callback", nil), &middleware.Viewer{Subject: "jane"}); err != nil {
		fmt.Println(err)
		return
	}

	next := httptest.NewRequest("GET", "/dash/1", nil)
	for _, c := range login.Result().Cookies() {
		next.AddCookie(c)
	}
	v, err := id.Viewer(next)
	fmt.Println(v.Subject, err)

	_, err = id.Viewer(httptest.NewRequest("GET", "/dash/1", nil))
	fmt.Println(err)
	// Output:
	// jane <nil>
	// middleware: no logged-in viewer
}

func ExampleKeysFromEnv() {
	keys, err := gorillasession.KeysFromEnv("c2hvcnQ=")
	fmt.Println(len(keys), err)
	// Output:
	// 0 gorillasession: session key 1: hash key is 5 bytes, want 32 or 64
}

// A sign-in over a login ends that login as logout would, when the Kit is
// the Identity's Revoker: its embed sessions are revoked and it is
// recorded in EndedLogins.
func ExampleIdentity_Revoker() {
	store := gorillasession.SecureCookieStore([]byte("an example hash key, 32 bytes!!!"))
	identity := gorillasession.New(store, "host-session")
	identity.EndedLogins = gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second)
	client, err := embedkit.New("https://acme.example.com", os.Getenv("EMBEDKIT_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	kit, err := middleware.New(middleware.Config{
		Platform:    client,
		Identity:    identity,
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com",
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = kit // New made the Kit the identity's Revoker and Keeper (middleware.KitUser)
}
