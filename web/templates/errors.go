package templates

import "net/http"

// ErrorFor returns the default error page copy for kind, one of the
// Kind constants: the status code, a plain-language title and detail,
// and the next step. An unknown kind gets the KindInternal copy. Callers
// usually keep the copy and set RetryURL, for example to the page that
// failed.
func ErrorFor(kind string) ErrorView {
	switch kind {
	case KindOutage:
		return ErrorView{
			Status:     http.StatusServiceUnavailable,
			Kind:       KindOutage,
			Title:      "Analytics are temporarily unavailable",
			Detail:     "We couldn't reach the analytics service. Your data is safe; try again in a moment.",
			RetryURL:   "/dashboards",
			RetryLabel: "Try again",
		}
	case KindLoginExpired:
		return ErrorView{
			Status:     http.StatusUnauthorized,
			Kind:       KindLoginExpired,
			Title:      "Your session has ended",
			Detail:     "Your sign-in has expired, so your dashboards are paused. Sign in again to pick up where you left off.",
			RetryURL:   "/login",
			RetryLabel: "Sign in again",
		}
	case KindForbidden:
		return ErrorView{
			Status:     http.StatusForbidden,
			Kind:       KindForbidden,
			Title:      "You don't have access to this dashboard",
			Detail:     "Your account isn't allowed to view this page. If you think it should be, ask an administrator in your organisation.",
			RetryURL:   "/dashboards",
			RetryLabel: "Back to dashboards",
		}
	case KindNotFound:
		return ErrorView{
			Status:     http.StatusNotFound,
			Kind:       KindNotFound,
			Title:      "We couldn't find that page",
			Detail:     "The link may be out of date, or the dashboard may have been removed.",
			RetryURL:   "/dashboards",
			RetryLabel: "Back to dashboards",
		}
	case KindBadRequest:
		return ErrorView{
			Status:     http.StatusBadRequest,
			Kind:       KindBadRequest,
			Title:      "That request didn't look right",
			Detail:     "Something in the request was missing or malformed. Go back and try again; if you were filling in a form, reload it first.",
			RetryURL:   "/dashboards",
			RetryLabel: "Back to dashboards",
		}
	default:
		return ErrorView{
			Status:     http.StatusInternalServerError,
			Kind:       KindInternal,
			Title:      "Something went wrong on our side",
			Detail:     "We've been notified and are looking into it. Please try again in a few minutes.",
			RetryURL:   "/",
			RetryLabel: "Go to the home page",
		}
	}
}

// filled returns e with its kind normalised (unknown kinds become
// KindInternal) and every empty text taken from the kind's defaults.
func filled(e ErrorView) ErrorView {
	def := ErrorFor(e.Kind)
	e.Kind = def.Kind
	if e.Title == "" {
		e.Title = def.Title
	}
	if e.Detail == "" {
		e.Detail = def.Detail
	}
	if e.RetryURL == "" {
		e.RetryURL = def.RetryURL
	}
	if e.RetryLabel == "" {
		e.RetryLabel = def.RetryLabel
	}
	return e
}

// errorActionID is the id of an error page's next-step link:
// error-retry when trying again may help, error-sign-in for an expired
// login and error-back otherwise.
func errorActionID(kind string) string {
	switch kind {
	case KindOutage, KindInternal:
		return "error-retry"
	case KindLoginExpired:
		return "error-sign-in"
	}
	return "error-back"
}
