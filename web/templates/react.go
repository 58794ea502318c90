package templates

// ReactView is the demo's React page.
type ReactView struct {
	// Title is the page heading.
	Title string
	// Lead is the text under the heading; empty shows none.
	Lead string
	// Config is the JSON the page's script reads from
	// div#react-root[data-config]; it is an attribute value, escaped when
	// rendered.
	Config string
	// ScriptURL is the page's module script, a same-origin path such as
	// /static/react.js. It is sanitised when rendered.
	ScriptURL string
}
