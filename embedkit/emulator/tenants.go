package emulator

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
)

// tenantGroupItem is an item of the embed-tenant group list. The
// platform's documents show no item fields: these are the minimum a
// caller needs (the id to delete it by, the name and the description
// generate-session sets), the emulator's own, and nothing more.
type tenantGroupItem struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// tenantFor authenticates an admin and resolves the embedTenantName path
// value: 400 for a name that breaks the pattern, 404 for an unknown tenant.
func (s *Server) tenantFor(w http.ResponseWriter, r *http.Request) (string, bool) {
	p, ok := s.authenticate(w, r, authOptions{})
	if !ok {
		return "", false
	}
	if !p.admin {
		s.writeError(w, http.StatusForbidden, "embed tenant administration needs an admin principal")
		return "", false
	}
	name := r.PathValue("embedTenantName")
	if !tenantNamePattern.MatchString(name) {
		s.writeError(w, http.StatusBadRequest, "embedTenantName: must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")
		return "", false
	}
	s.mu.Lock()
	_, exists := s.st.tenants[name]
	s.mu.Unlock()
	if !exists {
		s.writeError(w, http.StatusNotFound, "embed tenant "+name+" not found")
		return "", false
	}
	return name, true
}

// handleListTenantGroups is GET /api/v1/embed-tenants/{name}/groups,
// cursor-paginated by group id (see pagination.go).
func (s *Server) handleListTenantGroups(w http.ResponseWriter, r *http.Request) {
	name, ok := s.tenantFor(w, r)
	if !ok {
		return
	}
	first, after, ok := s.parseFirstAfter(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	t := s.st.tenants[name]
	var all []tenantGroupItem
	if t != nil {
		for _, g := range t.groups {
			all = append(all, tenantGroupItem{ID: g.id, Name: g.name, Description: g.description})
		}
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	start := sort.Search(len(all), func(i int) bool { return all[i].ID > int64(after) })
	end := min(start+first, len(all))
	items := append([]tenantGroupItem{}, all[start:end]...)
	keys := make([]int, len(items))
	for i, it := range items {
		keys[i] = int(it.ID)
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"items":      items,
		"pageInfo":   cursorPage(keys, end < len(all), start > 0),
		"data":       items,
		"count":      len(all),
		"pagination": offsetPage{Offset: start, Limit: first, Total: len(all)},
	})
}

// handleDeleteTenantGroup is DELETE /api/v1/embed-tenants/{name}/groups/{id}:
// 204, or 404 for an unknown id. Members lose the group.
func (s *Server) handleDeleteTenantGroup(w http.ResponseWriter, r *http.Request) {
	name, ok := s.tenantFor(w, r)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.tenants[name]
	var found *tenantGroupRec
	if err == nil && t != nil {
		for _, g := range t.groups {
			if g.id == id {
				found = g
			}
		}
	}
	if found == nil {
		s.writeError(w, http.StatusNotFound, "group "+r.PathValue("id")+" not found in embed tenant "+name)
		return
	}
	delete(t.groups, found.name)
	// Every user's membership of it in this tenant goes with it; the
	// same name in another tenant is another group.
	for _, u := range s.st.external {
		if groups, ok := u.tenantGroups[name]; ok {
			u.tenantGroups[name] = slices.DeleteFunc(groups, func(g string) bool { return g == found.name })
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
