package templates

// ModuleView is the module page's content: its title and lead, the
// dashboard's frame (its src, the kit's frame endpoint, and title), the
// JSON its script reads (Config) and the script's URL.
type ModuleView struct {
	Title, Lead string
	FrameSrc    string
	FrameTitle  string
	Config      string
	ScriptURL   string
}
