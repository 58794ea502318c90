package emulator

import (
	"net/http"
	"slices"
	"strings"
)

// handleListVersions is GET /api/v1/deployments/{id}/versions: {data: [...]}
// in fixture order, isCurrent following version switches.
func (s *Server) handleListVersions(w http.ResponseWriter, r *http.Request) {
	_, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	out := []Version{}
	if d := s.st.deployments[id]; d != nil {
		out = append(out, d.versions...)
	}
	s.mu.Unlock()
	s.writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// updateDeploymentBody is the partial update of PUT /api/v1/deployments/{id}:
// the fields the specification lists, all optional and nullable.
type updateDeploymentBody struct {
	ReleaseChannelVersion     *string        `json:"releaseChannelVersion"`
	ReleaseChannel            *string        `json:"releaseChannel"`
	ReleaseChannelVersionHold *bool          `json:"releaseChannelVersionHold"`
	CloudProvider             *string        `json:"cloudProvider"`
	Region                    *string        `json:"region"`
	Template                  *string        `json:"template"`
	TemplateVariables         map[string]any `json:"templateVariables"`
	DefaultLaunchpadViewGroup *string        `json:"defaultLaunchpadViewGroup"`
	LaunchpadTabs             []string       `json:"launchpadTabs"`
	CreationMethod            *string        `json:"creationMethod"`
	DeployMode                *string        `json:"deployMode"`
}

type deploymentSettings struct {
	ID                        int64          `json:"id"`
	Name                      string         `json:"name"`
	ReleaseChannel            string         `json:"releaseChannel"`
	ReleaseChannelVersion     string         `json:"releaseChannelVersion"`
	ReleaseChannelVersionHold bool           `json:"releaseChannelVersionHold"`
	TemplateVariables         map[string]any `json:"templateVariables"`
	CloudProvider             *string        `json:"cloudProvider"`
	Region                    *string        `json:"region"`
	Template                  *string        `json:"template"`
	DefaultLaunchpadViewGroup *string        `json:"defaultLaunchpadViewGroup"`
	LaunchpadTabs             []string       `json:"launchpadTabs"`
	CreationMethod            *string        `json:"creationMethod"`
	DeployMode                *string        `json:"deployMode"`
}

// deploymentEnums are the enum fields of UpdateDeploymentInput and their
// values, in the order the platform's schema lists them.
var deploymentEnums = []struct {
	field  string
	values []string
	get    func(*updateDeploymentBody) *string
}{
	{"cloudProvider", []string{"cubecloud", "aws", "gcp"}, func(b *updateDeploymentBody) *string { return b.CloudProvider }},
	{"creationMethod", []string{"upload", "cubecloud", "github", "ssh"}, func(b *updateDeploymentBody) *string { return b.CreationMethod }},
	{"deployMode", []string{"git", "cli"}, func(b *updateDeploymentBody) *string { return b.DeployMode }},
	{"releaseChannel", releaseChannels, func(b *updateDeploymentBody) *string { return b.ReleaseChannel }},
	{"template", []string{"single", "simpleCluster", "multiCluster"}, func(b *updateDeploymentBody) *string { return b.Template }},
}

// releaseChannels are the platform's release channels (notes, section 8);
// a fixture's versions name one of them.
var releaseChannels = []string{"latest", "release"}

// checkEnums rejects an enum field whose value the platform does not list.
func (b *updateDeploymentBody) checkEnums() error {
	for _, e := range deploymentEnums {
		v := e.get(b)
		if v != nil && !slices.Contains(e.values, *v) {
			return errAt(e.field, "must be one of "+strings.Join(e.values, ", "))
		}
	}
	return nil
}

// matchVersion finds the listed version written as <semver>, v<semver> or
// <image_repo>:v<semver>, within channel when channel is not empty.
func (d *deploymentRec) matchVersion(v, channel string) int {
	for i, ver := range d.versions {
		if channel != "" && ver.ReleaseChannel != channel {
			continue
		}
		if v == ver.Version || v == "v"+ver.Version || v == ver.ReleaseChannelVersion {
			return i
		}
	}
	return -1
}

func (d *deploymentRec) current() int {
	for i, v := range d.versions {
		if v.IsCurrent {
			return i
		}
	}
	return -1
}

// handleUpdateDeployment is PUT /api/v1/deployments/{id}. Rules:
//   - releaseChannelVersion in one of its three spellings (<semver>,
//     v<semver>, <image_repo>:v<semver>, nothing else: no white space is
//     trimmed) must be listed (in releaseChannel when that is sent too),
//     else 400;
//   - releaseChannel alone moves to that channel's latest version;
//   - pinning a version that is not its channel's latest sets
//     releaseChannelVersionHold unless the request sends the hold itself;
//     choosing the latest leaves the hold as it was (no document says it
//     clears it);
//   - templateVariables are merged key by key, each value stored as given
//     (null included);
//   - cloudProvider, creationMethod, deployMode, releaseChannel and
//     template take only the values of the platform's enums
//     (deploymentEnums; 400 naming the field otherwise); null is the same
//     as omitting a field.
//
// Every check runs before anything changes.
func (s *Server) handleUpdateDeployment(w http.ResponseWriter, r *http.Request) {
	_, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	var b updateDeploymentBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	if err := b.checkEnums(); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.deployments[id]
	if d == nil {
		s.writeError(w, http.StatusNotFound, "deployment "+formatID(id)+" not found")
		return
	}
	target := -1
	switch {
	case b.ReleaseChannelVersion != nil:
		ch := ""
		if b.ReleaseChannel != nil {
			ch = *b.ReleaseChannel
		}
		target = d.matchVersion(*b.ReleaseChannelVersion, ch)
		if target < 0 {
			msg := "releaseChannelVersion: " + *b.ReleaseChannelVersion + " is not in the versions list"
			if ch != "" {
				msg += " of channel " + ch
			}
			s.writeError(w, http.StatusBadRequest, msg)
			return
		}
	case b.ReleaseChannel != nil:
		for i, v := range d.versions {
			if v.ReleaseChannel == *b.ReleaseChannel && v.IsLatestInChannel {
				target = i
			}
		}
		if target < 0 {
			s.writeError(w, http.StatusBadRequest, "releaseChannel: unknown channel "+*b.ReleaseChannel)
			return
		}
	}
	if target >= 0 {
		for i := range d.versions {
			d.versions[i].IsCurrent = i == target
		}
		if !d.versions[target].IsLatestInChannel {
			d.releaseChannelVersionHold = true
		}
	}
	if b.ReleaseChannelVersionHold != nil {
		d.releaseChannelVersionHold = *b.ReleaseChannelVersionHold
	}
	for k, v := range b.TemplateVariables {
		d.templateVariables[k] = v
	}
	set := func(dst **string, v *string) {
		if v != nil {
			c := *v
			*dst = &c
		}
	}
	set(&d.cloudProvider, b.CloudProvider)
	set(&d.region, b.Region)
	set(&d.template, b.Template)
	set(&d.defaultLaunchpadViewGroup, b.DefaultLaunchpadViewGroup)
	set(&d.creationMethod, b.CreationMethod)
	set(&d.deployMode, b.DeployMode)
	if b.LaunchpadTabs != nil {
		d.launchpadTabs = append([]string{}, b.LaunchpadTabs...)
	}
	s.writeJSON(w, http.StatusOK, d.settingsLocked())
}

func (d *deploymentRec) settingsLocked() deploymentSettings {
	out := deploymentSettings{
		ID: d.id, Name: d.name,
		ReleaseChannelVersionHold: d.releaseChannelVersionHold,
		TemplateVariables:         cloneMap(d.templateVariables),
		CloudProvider:             d.cloudProvider,
		Region:                    d.region,
		Template:                  d.template,
		DefaultLaunchpadViewGroup: d.defaultLaunchpadViewGroup,
		LaunchpadTabs:             d.launchpadTabs,
		CreationMethod:            d.creationMethod,
		DeployMode:                d.deployMode,
	}
	if c := d.current(); c >= 0 {
		out.ReleaseChannel = d.versions[c].ReleaseChannel
		out.ReleaseChannelVersion = d.versions[c].ReleaseChannelVersion
	}
	return out
}
