package embedkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// This file holds deployment versions and the deployment update that
// switches them.

// DeploymentVersion is a version a deployment can switch to.
type DeploymentVersion struct {
	ReleaseChannelVersion string `json:"releaseChannelVersion"`
	Version               string `json:"version"`
	ReleaseChannel        string `json:"releaseChannel"`
	IsLatestInChannel     bool   `json:"isLatestInChannel"`
	IsCurrent             bool   `json:"isCurrent"`
}

// UpdateDeploymentRequest is a partial update of a deployment: zero fields
// are left untouched, TemplateVariables merge key by key.
//
// To switch versions set ReleaseChannelVersion to "1.4.2", "v1.4.2" or
// "image/repo:v1.4.2"; setting only ReleaseChannel moves the deployment to
// that channel's latest version.
//
// The enumerated fields take only the values of the platform's schema:
// ReleaseChannel latest or release; CloudProvider cubecloud, aws or gcp;
// Template single, simpleCluster or multiCluster; CreationMethod upload,
// cubecloud, github or ssh; DeployMode git or cli. Validate refuses any
// other value, naming the field and the values.
type UpdateDeploymentRequest struct {
	ReleaseChannelVersion     string         `json:"releaseChannelVersion,omitzero"`
	ReleaseChannel            string         `json:"releaseChannel,omitzero"`
	ReleaseChannelVersionHold *bool          `json:"releaseChannelVersionHold,omitzero"`
	CloudProvider             string         `json:"cloudProvider,omitzero"`
	Region                    string         `json:"region,omitzero"`
	Template                  string         `json:"template,omitzero"`
	TemplateVariables         map[string]any `json:"templateVariables,omitzero"`
	DefaultLaunchpadViewGroup string         `json:"defaultLaunchpadViewGroup,omitzero"`
	LaunchpadTabs             []string       `json:"launchpadTabs,omitzero"`
	CreationMethod            string         `json:"creationMethod,omitzero"`
	DeployMode                string         `json:"deployMode,omitzero"`
}

// The values the platform's UpdateDeploymentInput schema allows for the
// enumerated fields of UpdateDeploymentRequest (the specification names
// the fields only; the values are the platform's schema's). Validate
// refuses any other value, naming the field and these values.
var (
	releaseChannels     = []string{"latest", "release"}
	cloudProviders      = []string{"cubecloud", "aws", "gcp"}
	deploymentTemplates = []string{"single", "simpleCluster", "multiCluster"}
	creationMethods     = []string{"upload", "cubecloud", "github", "ssh"}
	deployModes         = []string{"git", "cli"}
)

// checkEnum adds a problem when value is set and not one of allowed.
func checkEnum(p *problems, field, value string, allowed []string) {
	if value != "" && !slices.Contains(allowed, value) {
		p.add(field, "must be one of "+strings.Join(allowed, ", "))
	}
}

// DeploymentSettings is the answer of a deployment update. The platform
// does not document it fully: the fields below are decoded when present and
// Raw holds the whole object.
type DeploymentSettings struct {
	ID                        int64           `json:"-"`
	Name                      string          `json:"name"`
	ReleaseChannel            string          `json:"releaseChannel"`
	ReleaseChannelVersion     string          `json:"releaseChannelVersion"`
	ReleaseChannelVersionHold bool            `json:"releaseChannelVersionHold"`
	TemplateVariables         map[string]any  `json:"templateVariables"`
	Raw                       json.RawMessage `json:"-"`
}

// ParseVersion reads a deployment version in any spelling the platform
// accepts and returns the bare semantic version:
//
//	1.7.20                           -> 1.7.20
//	v1.7.20                          -> 1.7.20
//	org/image:v1.7.20                -> 1.7.20
//	registry.example.com:5000/org/image:v1.7.20-rc.1+build.5 -> 1.7.20-rc.1+build.5
//
// The version is MAJOR.MINOR.PATCH with an optional pre-release and build
// suffix as semver.org defines them. An image repository is separated by
// the last ':' (a registry port also holds one) and follows the container
// image reference grammar. The error is a *ValidationError with Op
// "version" and Field "releaseChannelVersion".
func ParseVersion(s string) (semver string, err error) {
	v, rule := parseVersion(s)
	if rule != "" {
		p := problems{op: "version"}
		p.add("releaseChannelVersion", rule)
		return "", p.err()
	}
	return v, nil
}

// parseVersion returns the semantic version in s, or the rule s breaks.
func parseVersion(s string) (semver, rule string) {
	if len(s) > maxVersionLength {
		return "", ruleVersion
	}
	v := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		repo := s[:i]
		v = s[i+1:]
		if !strings.HasPrefix(v, "v") || !semverPattern.MatchString(v[1:]) {
			return "", ruleVersion
		}
		if !imageRepoPattern.MatchString(repo) {
			return "", ruleVersionImage
		}
		return v[1:], ""
	}
	v = strings.TrimPrefix(v, "v")
	if !semverPattern.MatchString(v) {
		return "", ruleVersion
	}
	return v, ""
}

// Validate reports the problems of a deployment update, Op
// "update-deployment". Every field is optional (a partial update): a nil
// or empty request is valid. releaseChannel, cloudProvider, template,
// creationMethod and deployMode, when set, are one of the values their
// fields' comments list (the enums of the platform's UpdateDeploymentInput
// schema); releaseChannelVersion, when set, is a version ParseVersion accepts;
// templateVariables keys are non-empty and the map is JSON-encodable.
func (r *UpdateDeploymentRequest) Validate() error {
	if r == nil {
		r = &UpdateDeploymentRequest{}
	}
	p := problems{op: "update-deployment"}
	if r.ReleaseChannelVersion != "" {
		if _, rule := parseVersion(r.ReleaseChannelVersion); rule != "" {
			p.add("releaseChannelVersion", rule)
		}
	}
	checkEnum(&p, "releaseChannel", r.ReleaseChannel, releaseChannels)
	checkEnum(&p, "cloudProvider", r.CloudProvider, cloudProviders)
	checkEnum(&p, "template", r.Template, deploymentTemplates)
	if r.TemplateVariables != nil {
		if _, empty := r.TemplateVariables[""]; empty {
			p.add("templateVariables", "keys must not be empty")
		}
		checkEncodable(&p, "templateVariables", r.TemplateVariables)
	}
	checkEnum(&p, "creationMethod", r.CreationMethod, creationMethods)
	checkEnum(&p, "deployMode", r.DeployMode, deployModes)
	return p.err()
}

// UnmarshalJSON reads the deployment settings, with an id that is a
// number or a string, and keeps the whole object in Raw.
func (s *DeploymentSettings) UnmarshalJSON(b []byte) error {
	type plain DeploymentSettings
	var w struct {
		plain
		ID flexInt64 `json:"id"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("deployment settings: %w", err)
	}
	*s = DeploymentSettings(w.plain)
	s.ID = int64(w.ID)
	s.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the decoded fields with the id.
func (s DeploymentSettings) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID                        int64          `json:"id"`
		Name                      string         `json:"name"`
		ReleaseChannel            string         `json:"releaseChannel,omitzero"`
		ReleaseChannelVersion     string         `json:"releaseChannelVersion,omitzero"`
		ReleaseChannelVersionHold bool           `json:"releaseChannelVersionHold"`
		TemplateVariables         map[string]any `json:"templateVariables,omitzero"`
	}{s.ID, s.Name, s.ReleaseChannel, s.ReleaseChannelVersion, s.ReleaseChannelVersionHold, s.TemplateVariables})
}

// decodeVersions reads {"data": [...]} or {"items": [...]}.
func decodeVersions(body []byte) ([]DeploymentVersion, error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return listOf[DeploymentVersion](env.Items, env.Data, "versions")
}

// ListVersions lists the versions a deployment can switch to (the head of
// each update channel plus versions the account ran before):
// GET /api/v1/deployments/{deploymentId}/versions.
func (c *Client) ListVersions(ctx context.Context, deploymentID int64) ([]DeploymentVersion, error) {
	if err := validationErr("list-versions", checkDeployment(deploymentID), nil); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodGet, deploymentPath(deploymentID)+"/versions", nil,
		call{template: "/api/v1/deployments/{deploymentId}/versions"}, decodeVersions)
}

// UpdateDeployment applies a partial update to a deployment:
// PUT /api/v1/deployments/{deploymentId}. Zero fields of req are left
// untouched; TemplateVariables merge key by key.
func (c *Client) UpdateDeployment(ctx context.Context, deploymentID int64, req *UpdateDeploymentRequest) (*DeploymentSettings, error) {
	if err := validationErr("update-deployment", checkDeployment(deploymentID), req.Validate()); err != nil {
		return nil, err
	}
	// The body is optional: a nil request sends none.
	var body any
	if req != nil {
		body = req
	}
	return fetch(ctx, c, http.MethodPut, deploymentPath(deploymentID), body, call{template: "/api/v1/deployments/{deploymentId}"},
		func(body []byte) (*DeploymentSettings, error) {
			var s DeploymentSettings
			if err := json.Unmarshal(unwrapData(body), &s); err != nil {
				return nil, err
			}
			return &s, nil
		})
}

// SwitchVersion switches a deployment to a version listed by
// ListVersions. version may be "1.4.2", "v1.4.2" or "image/repo:v1.4.2";
// it is checked with ParseVersion and sent as given, so the platform
// matches it against its list in the caller's spelling. A version the
// platform does not list, including a listed semver under an image
// repository the list does not name, gives a 400.
func (c *Client) SwitchVersion(ctx context.Context, deploymentID int64, version string) (*DeploymentSettings, error) {
	_, err := ParseVersion(version)
	if err := validationErr("update-deployment", checkDeployment(deploymentID), err); err != nil {
		return nil, err
	}
	return c.UpdateDeployment(ctx, deploymentID, &UpdateDeploymentRequest{ReleaseChannelVersion: version})
}
