package templates

// ModuleView is the module page's content: its title and lead, the
// dashboard's frame (its src, the platform URL the page's handler minted
// or the kit's frame endpoint; its data-embedkit-target, which the
// session endpoint re-mints it by, empty for none; and its title), the
// JSON its script reads (Config) and the script's URL.
type ModuleView struct {
	Title, Lead string
	FrameSrc    string
	Target      string
	FrameTitle  string
	Config      string
	ScriptURL   string
}
