package embedkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The platform documents several response shapes for the same data: the
// specification's examples ({"data": {"deployments": [...]}}, string ids,
// api_credentials as an object) and the platform's OpenAPI schema
// ({"items": [...], "data": [...]}, integer ids, api_credentials as an
// array of typed entries). The decoders below accept both.

// flexInt64 is an integer sent as a JSON number or a decimal string.
type flexInt64 int64

// UnmarshalJSON accepts 12, "12" and null.
func (f *flexInt64) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*f = 0
			return nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// 12.0 is a number too.
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int64(fl)) {
			return fmt.Errorf("id %s is not an integer", quoteBody(b))
		}
		n = int64(fl)
	}
	*f = flexInt64(n)
	return nil
}

// flexString is a string sent as a JSON string or a number.
type flexString string

// UnmarshalJSON accepts "a", 12 and null.
func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("value %s is neither a string nor a number", quoteBody(b))
	}
	*f = flexString(n.String())
	return nil
}

// flexTime is a timestamp in RFC 3339, or a bare ISO 8601 date; empty and
// null are the zero time.
type flexTime time.Time

// UnmarshalJSON accepts RFC 3339 timestamps, dates, "" and null.
func (f *flexTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp %s is not a string", quoteBody(b))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			*f = flexTime(t)
			return nil
		}
	}
	return fmt.Errorf("timestamp %s is not ISO 8601", quoteBody([]byte(s)))
}

// deploymentWire is a deployment as either source sends it.
type deploymentWire struct {
	ID          flexInt64 `json:"id"`
	Name        string    `json:"name"`
	CreatedAt   flexTime  `json:"created_at"`
	CreatedAtCC flexTime  `json:"createdAt"`
}

// UnmarshalJSON reads a deployment whose id is a number or a string.
func (d *Deployment) UnmarshalJSON(b []byte) error {
	var w deploymentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("deployment: %w", err)
	}
	d.ID, d.Name = int64(w.ID), w.Name
	d.CreatedAt = time.Time(w.CreatedAt)
	if d.CreatedAt.IsZero() {
		d.CreatedAt = time.Time(w.CreatedAtCC)
	}
	return nil
}

// MarshalJSON writes the specification's shape: {"id": "1", "name": ...,
// "created_at": ...}.
func (d Deployment) MarshalJSON() ([]byte, error) {
	w := struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		CreatedAt string `json:"created_at,omitzero"`
	}{ID: strconv.FormatInt(d.ID, 10), Name: d.Name}
	if !d.CreatedAt.IsZero() {
		w.CreatedAt = d.CreatedAt.Format(time.RFC3339Nano)
	}
	return json.Marshal(w)
}

// credentialWire is one entry of the array form of api_credentials.
type credentialWire struct {
	Type string    `json:"type"`
	URL  string    `json:"url"`
	Host string    `json:"host"`
	Port flexInt64 `json:"port"`
}

// environmentWire is an environment as either source sends it.
type environmentWire struct {
	ID             flexString      `json:"id"`
	Name           string          `json:"name"`
	Type           EnvironmentType `json:"type"`
	APICredentials json.RawMessage `json:"api_credentials"`
}

// UnmarshalJSON reads an environment whose api_credentials is an object
// {"rest": {"url"}, "sql": {"host", "port"}} or an array of entries typed
// "rest" or "sql".
func (e *Environment) UnmarshalJSON(b []byte) error {
	var w environmentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("environment: %w", err)
	}
	*e = Environment{ID: string(w.ID), Name: w.Name, Type: w.Type}
	creds := bytes.TrimSpace(w.APICredentials)
	switch {
	case len(creds) == 0 || bytes.Equal(creds, []byte("null")):
	case creds[0] == '[':
		var list []credentialWire
		if err := json.Unmarshal(creds, &list); err != nil {
			return fmt.Errorf("environment api_credentials: %w", err)
		}
		for _, c := range list {
			switch strings.ToLower(c.Type) {
			case "rest":
				e.RESTURL = c.URL
			case "sql":
				e.SQLHost, e.SQLPort = c.Host, int(c.Port)
			}
		}
	case creds[0] == '{':
		var obj struct {
			REST *struct {
				URL string `json:"url"`
			} `json:"rest"`
			SQL *struct {
				Host string    `json:"host"`
				Port flexInt64 `json:"port"`
			} `json:"sql"`
		}
		if err := json.Unmarshal(creds, &obj); err != nil {
			return fmt.Errorf("environment api_credentials: %w", err)
		}
		if obj.REST != nil {
			e.RESTURL = obj.REST.URL
		}
		if obj.SQL != nil {
			e.SQLHost, e.SQLPort = obj.SQL.Host, int(obj.SQL.Port)
		}
	default:
		return errors.New("environment api_credentials is neither an object nor an array")
	}
	return nil
}

// MarshalJSON writes the specification's shape, with api_credentials as
// an object.
func (e Environment) MarshalJSON() ([]byte, error) {
	type rest struct {
		URL string `json:"url"`
	}
	type sql struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	}
	w := struct {
		ID             string          `json:"id"`
		Name           string          `json:"name"`
		Type           EnvironmentType `json:"type"`
		APICredentials struct {
			REST *rest `json:"rest,omitzero"`
			SQL  *sql  `json:"sql,omitzero"`
		} `json:"api_credentials"`
	}{ID: e.ID, Name: e.Name, Type: e.Type}
	if e.RESTURL != "" {
		w.APICredentials.REST = &rest{URL: e.RESTURL}
	}
	if e.SQLHost != "" || e.SQLPort != 0 {
		w.APICredentials.SQL = &sql{Host: e.SQLHost, Port: e.SQLPort}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a tenant group whose id is a string or a number and
// keeps the whole item in Raw.
func (g *TenantGroup) UnmarshalJSON(b []byte) error {
	var w struct {
		ID          flexString `json:"id"`
		Name        string     `json:"name"`
		Description *string    `json:"description"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("tenant group: %w", err)
	}
	*g = TenantGroup{ID: string(w.ID), Name: w.Name, Raw: append(json.RawMessage(nil), b...)}
	if w.Description != nil {
		g.Description = *w.Description
	}
	return nil
}

// MarshalJSON writes {"id", "name", "description"}.
func (g TenantGroup) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description,omitzero"`
	}{g.ID, g.Name, g.Description})
}

// UnmarshalJSON reads a branch whose id is a number or a string and whose
// optional fields may be null.
func (br *Branch) UnmarshalJSON(b []byte) error {
	var w struct {
		ID                          flexInt64 `json:"id"`
		Name                        string    `json:"name"`
		ParentBranch                *string   `json:"parentBranch"`
		LastHash                    *string   `json:"lastHash"`
		IsStagingEnvironmentEnabled *bool     `json:"isStagingEnvironmentEnabled"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("branch: %w", err)
	}
	*br = Branch{ID: int64(w.ID), Name: w.Name}
	if w.ParentBranch != nil {
		br.ParentBranch = *w.ParentBranch
	}
	if w.LastHash != nil {
		br.LastHash = *w.LastHash
	}
	if w.IsStagingEnvironmentEnabled != nil {
		br.IsStagingEnvironmentEnabled = *w.IsStagingEnvironmentEnabled
	}
	return nil
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

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// listOf decodes a list that is sent as "items": [...], as "data": [...]
// or as "data": {"<key>": [...]}, preferring items.
func listOf[T any](items, data json.RawMessage, key string) ([]T, error) {
	var out []T
	if !isNull(items) {
		if err := json.Unmarshal(items, &out); err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		return out, nil
	}
	d := bytes.TrimSpace(data)
	if isNull(d) {
		return nil, fmt.Errorf("neither items nor data present")
	}
	if d[0] == '[' {
		if err := json.Unmarshal(d, &out); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(d, &obj); err != nil {
		return nil, fmt.Errorf("data is neither a list nor an object")
	}
	inner, ok := obj[key]
	if !ok || isNull(inner) {
		return nil, fmt.Errorf("data.%s missing", key)
	}
	if err := json.Unmarshal(inner, &out); err != nil {
		return nil, fmt.Errorf("data.%s: %w", key, err)
	}
	return out, nil
}

// listEnvelope is the outside of every list response.
type listEnvelope struct {
	Items      json.RawMessage `json:"items"`
	Data       json.RawMessage `json:"data"`
	Pagination *Pagination     `json:"pagination"`
	PageInfo   *PageInfo       `json:"pageInfo"`
	Count      *int            `json:"count"`
}

// decodeDeployments reads either shape of the deployment list.
// known reports whether the platform sent a total.
func decodeDeployments(body []byte) (page *DeploymentPage, known bool, err error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, false, err
	}
	list, err := listOf[Deployment](env.Items, env.Data, "deployments")
	if err != nil {
		return nil, false, err
	}
	page = &DeploymentPage{Deployments: list}
	return page, fillPagination(&page.Pagination, env), nil
}

// decodeEnvironments reads either shape of the environment list.
// known reports whether the platform sent a total.
func decodeEnvironments(body []byte) (page *EnvironmentPage, known bool, err error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, false, err
	}
	list, err := listOf[Environment](env.Items, env.Data, "environments")
	if err != nil {
		return nil, false, err
	}
	page = &EnvironmentPage{Environments: list}
	return page, fillPagination(&page.Pagination, env), nil
}

// fillPagination copies the pagination, or takes the total from count
// when the platform sent no pagination. It reports whether a total was
// sent at all.
func fillPagination(p *Pagination, env listEnvelope) bool {
	switch {
	case env.Pagination != nil:
		*p = *env.Pagination
	case env.Count != nil:
		p.Total = *env.Count
	default:
		return false
	}
	return true
}

// decodeVersions reads {"data": [...]} or {"items": [...]}.
func decodeVersions(body []byte) ([]DeploymentVersion, error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return listOf[DeploymentVersion](env.Items, env.Data, "versions")
}

// decodeTenantGroups reads {"items": [...], "pageInfo": {...}} or the
// legacy {"data": [...]}.
func decodeTenantGroups(body []byte) (*TenantGroupPage, error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	list, err := listOf[TenantGroup](env.Items, env.Data, "groups")
	if err != nil {
		return nil, err
	}
	page := &TenantGroupPage{Items: list}
	if env.PageInfo != nil {
		page.PageInfo = *env.PageInfo
	}
	return page, nil
}

// unwrapData returns the object under "data" when body is {"data": {...}},
// and body itself otherwise.
func unwrapData(body []byte) []byte {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return body
	}
	d, ok := env["data"]
	if !ok {
		return body
	}
	d = bytes.TrimSpace(d)
	if len(d) > 0 && d[0] == '{' {
		return d
	}
	return body
}

// decodeMetaToken reads {"data": {"token", "created_at", "expires_at"}}
// (or the same object unwrapped).
func decodeMetaToken(body []byte) (*MetaToken, error) {
	var w struct {
		Token       string   `json:"token"`
		CreatedAt   flexTime `json:"created_at"`
		ExpiresAt   flexTime `json:"expires_at"`
		CreatedAtCC flexTime `json:"createdAt"`
		ExpiresAtCC flexTime `json:"expiresAt"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.Token == "" {
		return nil, errors.New("token missing")
	}
	t := &MetaToken{Token: w.Token, CreatedAt: time.Time(w.CreatedAt), ExpiresAt: time.Time(w.ExpiresAt)}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Time(w.CreatedAtCC)
	}
	if t.ExpiresAt.IsZero() {
		t.ExpiresAt = time.Time(w.ExpiresAtCC)
	}
	return t, nil
}

// dataAPITokenAltField is the field name the platform's OpenAPI schema
// gives the data API token.
const dataAPITokenAltField = "cubeApiToken"

// decodeDataAPIToken reads {"token"} or the schema's alternative field
// name, unwrapped or under "data".
func decodeDataAPIToken(body []byte) (*DataAPIToken, error) {
	var w map[string]json.RawMessage
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	for _, k := range []string{"token", dataAPITokenAltField} {
		if raw, ok := w[k]; ok && !isNull(raw) {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s is not a string", k)
			}
			if s != "" {
				return &DataAPIToken{Token: s}, nil
			}
		}
	}
	return nil, errors.New("token missing")
}

// decodeBranch reads {"data": Branch} or a bare Branch.
func decodeBranch(body []byte) (*Branch, error) {
	var br Branch
	if err := json.Unmarshal(unwrapData(body), &br); err != nil {
		return nil, err
	}
	return &br, nil
}

// decodeExportJob reads {"jobId", "expiresAt"}.
func decodeExportJob(body []byte) (*ExportJob, error) {
	var w struct {
		JobID     flexString `json:"jobId"`
		ExpiresAt flexTime   `json:"expiresAt"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.JobID == "" {
		return nil, errors.New("jobId missing")
	}
	return &ExportJob{JobID: string(w.JobID), ExpiresAt: time.Time(w.ExpiresAt)}, nil
}

// decodeExportStatus reads the job status.
func decodeExportStatus(body []byte) (*ExportStatus, error) {
	var w struct {
		Status      ExportStatusValue `json:"status"`
		Progress    *float64          `json:"progress"`
		Error       *string           `json:"error"`
		ContentType *string           `json:"contentType"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.Status == "" {
		return nil, errors.New("status missing")
	}
	st := &ExportStatus{Status: w.Status, Progress: w.Progress}
	if w.Error != nil {
		st.Error = *w.Error
	}
	if w.ContentType != nil {
		st.ContentType = *w.ContentType
	}
	return st, nil
}
