package scssession_test

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/alexedwards/scs/v2"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/scssession"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// An app on scs: the Identity in the Kit's Config, the Kit as the
// Identity's Revoker, and every handler inside LoadAndSave.
func Example() {
	sessionManager := scs.New() // its memory store; any scs store works (redisstore, goredisstore, postgresstore, ...)
	identity := scssession.New(sessionManager)
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
	// New made the Kit identity.Revoker (middleware.KitUser): a sign-in
	// over a login revokes that login's embeds.

	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		// ... check the password, then:
		if err := identity.Save(w, r, &middleware.Viewer{Subject: "jane"}); err != nil {
			http.Error(w, "sign-in failed", http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = identity.Clear(w, r) // deletes the session from the store
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})))
	mux.Handle("/embed/frame/", kit.FrameHandler())
	log.Fatal(http.ListenAndServe(":8080", sessionManager.LoadAndSave(mux))) // the kit's handlers inside LoadAndSave
}

func ExampleNew() {
	sessionManager := scs.New()
	identity := scssession.New(sessionManager)
	app := sessionManager.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			_ = identity.Save(w, r, &middleware.Viewer{Subject: "jane"})
			return
		}
		v, err := identity.Viewer(r)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(v.Subject, v.SessionKey != "")
	}))

	login := httptest.NewRecorder()
	app.ServeHTTP(login, httptest.NewRequest("POST", "/login", nil))
	next := httptest.NewRequest("GET", "/sales", nil)
	for _, c := range login.Result().Cookies() {
		next.AddCookie(c)
	}
	app.ServeHTTP(httptest.NewRecorder(), next)
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/sales", nil))

	// Outside LoadAndSave, an error names the fix instead of scs's panic.
	_, err := identity.Viewer(httptest.NewRequest("GET", "/sales", nil))
	fmt.Println(errors.Is(err, scssession.ErrNoLoadAndSave))
	// Output:
	// jane true
	// middleware: no logged-in viewer
	// true
}
