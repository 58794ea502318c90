package emulator

import (
	"encoding/json"
	"sync"
)

// The OpenAPI 3.1 description the emulator serves at GET /api/v1/spec. It
// covers exactly the operations the emulator implements, with the field
// names of the platform's specification. The operations the specification
// lists by method and path only are left out: the emulator answers them
// 501.

// openAPIDocument returns the OpenAPI document as JSON. It is built once;
// callers must not modify the returned slice.
func openAPIDocument() []byte {
	return openAPIJSON()
}

var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(buildOpenAPI())
	if err != nil {
		// The document is built from literals; failing to encode it is a
		// programming error caught by the package tests.
		panic("emulator: encode OpenAPI document: " + err.Error())
	}
	return b
})

// oaMap is a JSON Schema, or any other OpenAPI object, under
// construction.
type oaMap = map[string]any

func oaRef(name string) oaMap { return oaMap{"$ref": "#/components/schemas/" + name} }

func oaType(t string) oaMap { return oaMap{"type": t} }

func oaString(desc string) oaMap {
	s := oaType("string")
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// oaNullable admits null besides s, as the specification does for every
// optional request field: a plain type becomes a type list, anything else
// (a reference, an enumeration) a oneOf with null.
func oaNullable(s oaMap) oaMap {
	t, plain := s["type"].(string)
	_, isEnum := s["enum"]
	if !plain || isEnum {
		return oaMap{"oneOf": []any{s, oaType("null")}}
	}
	out := make(oaMap, len(s))
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []string{t, "null"}
	return out
}

func oaArray(items oaMap) oaMap { return oaMap{"type": "array", "items": items} }

func oaObject(props oaMap, required ...string) oaMap {
	s := oaMap{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func oaEnum(values ...string) oaMap { return oaMap{"type": "string", "enum": values} }

func oaJSONBody(s oaMap) oaMap {
	return oaMap{"required": true, "content": oaMap{"application/json": oaMap{"schema": s}}}
}

func oaJSONResponse(desc string, s oaMap) oaMap {
	return oaMap{"description": desc, "content": oaMap{"application/json": oaMap{"schema": s}}}
}

func oaErrorRef(name string) oaMap {
	return oaMap{"$ref": "#/components/responses/" + name}
}

func oaPathParam(name, typ, desc string) oaMap {
	return oaMap{"name": name, "in": "path", "required": true, "description": desc, "schema": oaType(typ)}
}

func oaQueryParam(name string, s oaMap, desc string) oaMap {
	return oaMap{"name": name, "in": "query", "required": false, "description": desc, "schema": s}
}

func oaOperation(id, tag, summary string, params []oaMap, body oaMap, responses oaMap) oaMap {
	op := oaMap{"operationId": id, "tags": []string{tag}, "summary": summary, "responses": responses}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if body != nil {
		op["requestBody"] = body
	}
	return op
}

// buildOpenAPI assembles the document.
func buildOpenAPI() oaMap {
	return oaMap{
		"openapi": "3.1.0",
		"info": oaMap{
			"title":   "Platform Management API (emulator)",
			"version": "1.0.0",
			"description": "The operations of the platform's management API that the in-memory emulator implements. " +
				"Errors are JSON objects {\"error\": message}.",
		},
		"servers":    []oaMap{{"url": "/", "description": "The emulator's own address."}},
		"security":   []oaMap{{"bearerAuth": []string{}}},
		"tags":       []oaMap{{"name": "Embed"}, {"name": "Deployments"}, {"name": "Data Model"}, {"name": "Audit Log"}, {"name": "Dashboard Exports"}, {"name": "Spec"}},
		"paths":      openAPIPaths(),
		"components": openAPIComponents(),
	}
}

func openAPIPaths() oaMap {
	oaDeploymentID := oaPathParam("deploymentId", "integer", "Deployment id.")
	oaJobID := oaPathParam("jobId", "string", "Export job id returned on submit.")
	oaOffset := oaQueryParam("offset", oaMap{"type": "integer", "minimum": 0, "default": 0}, "Offset pagination: rows to skip.")
	oaLimit := oaQueryParam("limit", oaMap{"type": "integer", "minimum": 0, "default": 20}, "Offset pagination: page size.")
	std := func(ok oaMap, codes ...string) oaMap {
		r := oaMap{"401": oaErrorRef("Unauthorized")}
		for k, v := range ok {
			r[k] = v
		}
		for _, c := range codes {
			r[c] = oaErrorRef(oaStatusNames[c])
		}
		return r
	}
	embedAuth := []oaMap{{"bearerAuth": []string{}}, {"apiKeyAuth": []string{}}}

	generate := oaOperation("generateSession", "Embed", "Mint a one-time embed session",
		nil, oaJSONBody(oaRef("GenerateSession")),
		std(oaMap{"200": oaJSONResponse("The session id: valid once, for 5 minutes.", oaRef("GenerateSessionResponse"))}, "400", "403", "404"))
	generate["security"] = embedAuth

	exchange := oaOperation("postTokenBySessionId", "Embed", "Exchange a session id for an embed token",
		nil, oaJSONBody(oaRef("PostTokenBySessionIdInput")),
		oaMap{
			"200": oaJSONResponse("A signed embed token, valid 24 hours.", oaRef("GenerateEmbedTokenResponse")),
			"400": oaErrorRef("BadRequest"),
			"401": oaMap{"description": "The session id is unknown, expired, revoked or already used.", "content": oaErrorContent()},
		})
	exchange["security"] = []oaMap{}
	exchange["description"] = "Unauthenticated: the session id is the credential. Single use."

	revoke := oaOperation("revokeSession", "Embed", "Revoke an embed session",
		nil, oaJSONBody(oaRef("RevokeEmbedSessionInput")),
		std(oaMap{"204": oaMap{"description": "Session revoked, or did not exist."}}, "400", "403"))
	revoke["security"] = embedAuth

	return oaMap{
		"/api/v1/embed/generate-session": oaMap{"post": generate},
		"/api/v1/embed/session/token":    oaMap{"post": exchange},
		"/api/v1/embed/session/revoke":   oaMap{"post": revoke},
		"/api/v1/embed-tenants/{embedTenantName}/groups": oaMap{"get": oaOperation("listEmbedTenantGroups", "Embed",
			"List the groups of an embed tenant",
			[]oaMap{
				oaPathParam("embedTenantName", "string", "Embed tenant name."),
				oaQueryParam("first", oaMap{"type": "integer", "minimum": 1}, "Cursor pagination: page size."),
				oaQueryParam("after", oaType("string"), "Cursor pagination: pageInfo.endCursor of the previous page."),
			}, nil,
			std(oaMap{"200": oaJSONResponse("One page of groups.", oaRef("TenantGroupsListResponse"))}, "403", "404"))},
		"/api/v1/embed-tenants/{embedTenantName}/groups/{id}": oaMap{"delete": oaOperation("deleteEmbedTenantGroup", "Embed",
			"Delete a group of an embed tenant",
			[]oaMap{oaPathParam("embedTenantName", "string", "Embed tenant name."), oaPathParam("id", "integer", "Group id.")}, nil,
			std(oaMap{"204": oaMap{"description": "Group deleted."}}, "403", "404"))},

		"/api/v1/deployments": oaMap{"get": oaOperation("getDeployments", "Deployments", "List deployments",
			[]oaMap{oaOffset, oaLimit}, nil,
			std(oaMap{"200": oaJSONResponse("One page of deployments.", oaRef("DeploymentsListResponse"))}, "400"))},
		"/api/v1/deployments/{deploymentId}": oaMap{"put": oaOperation("updateDeployment", "Deployments",
			"Update a deployment or switch its version",
			[]oaMap{oaDeploymentID}, oaJSONBody(oaRef("UpdateDeploymentInput")),
			std(oaMap{"200": oaJSONResponse("The deployment's settings after the update.", oaRef("DeploymentSettings"))}, "400", "403", "404"))},
		"/api/v1/deployments/{deploymentId}/environments": oaMap{"get": oaOperation("getDeploymentEnvironments", "Deployments",
			"List a deployment's environments",
			[]oaMap{oaDeploymentID,
				oaQueryParam("type", oaEnum("production", "staging", "development"), "Only environments of this type."),
				oaOffset, oaLimit}, nil,
			std(oaMap{"200": oaJSONResponse("One page of environments.", oaRef("EnvironmentsListResponse"))}, "400", "403", "404"))},
		"/api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync": oaMap{"post": oaOperation(
			"createDeploymentEnvironmentTokenForMetaSync", "Deployments", "Issue a metadata-only token",
			[]oaMap{oaDeploymentID, oaPathParam("environmentId", "string", "Environment id.")},
			oaJSONBody(oaRef("CreateDeploymentEnvironmentTokenInput")),
			std(oaMap{"200": oaJSONResponse("The metadata token.", oaRef("DeploymentEnvironmentTokenResponse"))}, "400", "403", "404"))},
		"/api/v1/deployments/{deploymentId}/token": oaMap{"post": oaOperation("deploymentToken", "Deployments",
			"Issue a data API token",
			[]oaMap{oaDeploymentID}, oaOptional(oaJSONBody(oaRef("CreateDeploymentTokenInput"))),
			std(oaMap{"200": oaJSONResponse("The data API token; embed session revocation does not affect it.", oaRef("DeploymentTokenResponse"))}, "400", "403", "404"))},
		"/api/v1/deployments/{deploymentId}/versions": oaMap{"get": oaOperation("listDeploymentVersions", "Deployments",
			"List the versions a deployment can switch to",
			[]oaMap{oaDeploymentID}, nil,
			std(oaMap{"200": oaJSONResponse("The head of each channel and the versions the account ran before.", oaRef("DeploymentVersionsResponse"))}, "403", "404"))},
		"/build/api/v1/deployments/{deploymentId}/branches/staging-environment": oaMap{"put": oaOperation(
			"setBranchStagingEnvironment", "Data Model", "Enable or disable a shared branch's staging environment",
			[]oaMap{oaDeploymentID}, oaJSONBody(oaRef("SetBranchStagingEnvironmentRequest")),
			std(oaMap{"200": oaJSONResponse("The branch.", oaRef("SetBranchStagingEnvironmentResponse"))}, "400", "403", "404"))},

		"/api/v1/audit-logs/export": oaMap{"get": oaOperation("exportAuditLogs", "Audit Log", "Export audit-log events as CSV",
			[]oaMap{
				oaQueryParam("start", oaMap{"type": "string", "format": "date"}, "Start of the date range (ISO 8601)."),
				oaQueryParam("end", oaMap{"type": "string", "format": "date"}, "End of the date range (ISO 8601)."),
				oaQueryParam("search", oaType("string"), "Full-text search over event data."),
				oaQueryParam("eventName", oaType("string"), "Only events of this type."),
				oaQueryParam("userEmail", oaType("string"), "Only events of this user."),
			}, nil,
			std(oaMap{"200": oaMap{
				"description": "A CSV file, sent as an attachment, with the columns time, eventName, userEmail and data (the event's data as JSON).",
				"headers":     oaMap{"Content-Disposition": oaMap{"schema": oaType("string")}},
				"content":     oaMap{"text/csv": oaMap{"schema": oaType("string")}},
			}}, "400", "403"))},

		"/api/v1/deployments/{deploymentId}/dashboard-exports": oaMap{"post": oaOperation("startExport", "Dashboard Exports",
			"Render a published dashboard to PNG or PDF",
			[]oaMap{oaDeploymentID}, oaJSONBody(oaRef("StartDashboardExportInput")),
			std(oaMap{"200": oaJSONResponse("The job; it and its file are dropped at expiresAt, 5 minutes after submission.", oaRef("DashboardExportJobResponse"))},
				"400", "403", "404", "429"))},
		"/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}": oaMap{"get": oaOperation("getExportStatus", "Dashboard Exports",
			"Poll an export job",
			[]oaMap{oaDeploymentID, oaJobID}, nil,
			std(oaMap{"200": oaJSONResponse("The job's state; pending and processing mean keep polling.", oaRef("DashboardExportStatusResponse"))}, "404"))},
		"/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download": oaMap{"get": oaOperation("downloadExport", "Dashboard Exports",
			"Download a finished export",
			[]oaMap{oaDeploymentID, oaJobID,
				oaQueryParam("filename", oaType("string"), "File name stem; the extension follows the format. Default dashboard.")}, nil,
			std(oaMap{"200": oaMap{
				"description": "The rendered file, sent as an attachment.",
				"headers":     oaMap{"Content-Disposition": oaMap{"schema": oaType("string")}},
				"content": oaMap{
					"image/png":       oaMap{"schema": oaMap{"type": "string", "format": "binary"}},
					"application/pdf": oaMap{"schema": oaMap{"type": "string", "format": "binary"}},
				},
			}}, "404", "409", "422"))},

		"/api/v1/spec": oaMap{"get": oaOperation("getSpec", "Spec", "This OpenAPI document", nil, nil,
			std(oaMap{"200": oaJSONResponse("The OpenAPI 3.1 document of the running build.", oaType("object"))}))},
	}
}

// oaOptional marks a request body as not required.
func oaOptional(body oaMap) oaMap {
	body["required"] = false
	return body
}

var oaStatusNames = map[string]string{
	"400": "BadRequest",
	"401": "Unauthorized",
	"403": "Forbidden",
	"404": "NotFound",
	"409": "Conflict",
	"422": "UnprocessableEntity",
	"429": "TooManyRequests",
}

func oaErrorContent() oaMap {
	return oaMap{"application/json": oaMap{"schema": oaRef("Error")}}
}

func openAPIComponents() oaMap {
	responses := oaMap{}
	descriptions := map[string]string{
		"BadRequest":          "The request breaks a rule of the operation.",
		"Unauthorized":        "The credential is missing, malformed or expired, or the embed token was revoked.",
		"Forbidden":           "The credential is valid but not authorized for the target.",
		"NotFound":            "The target does not exist or is not visible to the caller.",
		"Conflict":            "The export is still rendering; poll its status first.",
		"UnprocessableEntity": "The render failed; submit a new export.",
		"TooManyRequests":     "Too many exports in flight for the identity rendered as.",
	}
	for name, d := range descriptions {
		responses[name] = oaMap{"description": d, "content": oaErrorContent()}
	}

	nstr := func() oaMap { return oaNullable(oaType("string")) }
	nbool := func() oaMap { return oaNullable(oaType("boolean")) }
	nstrs := func() oaMap { return oaNullable(oaArray(oaType("string"))) }

	settings := oaMap{}
	for _, k := range []string{"allowAi", "showDashboardChat", "showWorkbookChat", "showAiWidgets",
		"allowChatWorkspaceAuthoring", "showWorkbookShare", "showDashboardSettings", "showMemberNames", "showGroupByCube"} {
		settings[k] = nbool()
	}
	settings["locale"] = oaNullable(oaString("BCP-47 language tag; an unshipped language falls through to the default."))
	settings["timezone"] = oaNullable(oaString("IANA time zone; a bare UTC offset or unknown name falls through."))

	attrValue := oaMap{"oneOf": []any{
		oaType("string"), oaType("number"), oaType("boolean"),
		oaArray(oaType("string")), oaArray(oaType("number")), oaType("null"),
	}}
	member := oaMap{"type": "string", "pattern": `.+\..+`}

	schemas := oaMap{
		"Error": oaObject(oaMap{"error": oaString("What went wrong.")}, "error"),

		"GenerateSession": oaObject(oaMap{
			"deploymentId":             oaDescribe(oaType("number"), "Deployment the session grants access to."),
			"externalId":               oaNullable(oaString("Stable id of the external user; lowercase and trimmed. Give exactly one of externalId and internalId.")),
			"internalId":               oaNullable(oaString("Username of an existing internal user.")),
			"email":                    nstr(),
			"userProfile":              oaNullable(oaRef("EmbedUserProfile")),
			"embedTenantName":          oaNullable(oaMap{"type": "string", "pattern": "^[a-z][a-z0-9-]{0,34}[a-z0-9]$"}),
			"embedTenantProfile":       oaNullable(oaRef("EmbedTenantProfile")),
			"creatorMode":              nbool(),
			"groups":                   oaNullable(oaMap{"type": "array", "items": oaType("string"), "description": "Global group names, put in securityContext.platformCloud.groups. Omitted keeps memberships, [] clears them."}),
			"tenantGroups":             nstrs(),
			"tenantGroupDefinitions":   oaNullable(oaArray(oaRef("GroupDefinition"))),
			"groupDefinitions":         oaNullable(oaMap{"type": "array", "items": oaRef("GroupDefinition"), "deprecated": true, "description": "Accepted and ignored."}),
			"userAttributes":           oaNullable(oaArray(oaRef("UserAttributeInput"))),
			"userAttributeDefinitions": oaNullable(oaArray(oaRef("UserAttributeDefinition"))),
			"securityContext":          oaNullable(oaMap{"type": "object", "additionalProperties": true}),
			"settings":                 oaNullable(oaRef("EmbedSessionSettings")),
			"embedTheme":               oaNullable(oaRef("EmbedTheme")),
			"isEphemeral":              nbool(),
			"publicDashboardId":        nstr(),
			"roles":                    nstrs(),
			"branchName":               oaNullable(oaString("Branch whose data model the session queries; omitted means production.")),
		}, "deploymentId"),
		"GroupDefinition": oaObject(oaMap{"name": oaType("string"), "description": nstr()}, "name"),
		"UserAttributeDefinition": oaObject(oaMap{
			"name":         oaType("string"),
			"type":         oaEnum("string", "number", "boolean", "string_array", "number_array"),
			"displayName":  nstr(),
			"defaultValue": nstr(),
			"description":  nstr(),
		}, "name", "type"),
		"UserAttributeInput": oaObject(oaMap{"name": oaType("string"), "value": attrValue}, "name"),
		"EmbedUserProfile": oaObject(oaMap{
			"displayName": nstr(),
			"picture":     oaNullable(oaMap{"type": "string", "format": "uri", "description": "Absolute http:// or https:// URL."}),
		}),
		"EmbedTenantProfile": oaObject(oaMap{"displayName": nstr()}),
		"EmbedTheme": oaObject(oaMap{
			"primaryColor": nstr(),
			"font":         nstr(),
			"chat":         oaNullable(oaObject(oaMap{"inputColor": nstr()})),
			"analyticsChat": oaNullable(oaObject(oaMap{
				"backgroundColor": nstr(),
				"chatInput":       oaNullable(oaObject(oaMap{"backgroundColor": nstr(), "borderColor": nstr()})),
			})),
		}),
		"EmbedSessionSettings":       oaObject(settings),
		"GenerateSessionResponse":    oaObject(oaMap{"sessionId": oaMap{"type": "string", "pattern": "^[0-9a-f]{32}$"}}, "sessionId"),
		"PostTokenBySessionIdInput":  oaObject(oaMap{"sessionId": oaType("string")}, "sessionId"),
		"GenerateEmbedTokenResponse": oaObject(oaMap{"token": oaString("Signed embed token (JWT), expiring after 24 hours.")}, "token"),
		"RevokeEmbedSessionInput":    oaObject(oaMap{"sessionId": oaMap{"type": "string", "pattern": "^[0-9a-f]{32}$"}}, "sessionId"),

		"PageInfo": oaObject(oaMap{
			"hasNextPage":     oaType("boolean"),
			"hasPreviousPage": oaType("boolean"),
			"startCursor":     nstr(),
			"endCursor":       nstr(),
		}, "hasNextPage", "hasPreviousPage"),
		// The platform shows no item fields; these are the emulator's
		// minimum.
		"TenantGroup": oaObject(oaMap{
			"id":          oaType("integer"),
			"name":        oaType("string"),
			"description": oaType("string"),
		}, "id", "name", "description"),
		"TenantGroupsListResponse": oaObject(oaMap{
			"items":      oaArray(oaRef("TenantGroup")),
			"pageInfo":   oaRef("PageInfo"),
			"data":       oaMap{"type": "array", "items": oaRef("TenantGroup"), "deprecated": true},
			"count":      oaMap{"type": "integer", "minimum": 0, "deprecated": true},
			"pagination": oaMap{"allOf": []any{oaRef("Pagination")}, "deprecated": true},
		}, "items", "pageInfo", "data", "count", "pagination"),

		"Pagination": oaObject(oaMap{
			"offset": oaMap{"type": "integer", "minimum": 0},
			"limit":  oaMap{"type": "integer", "minimum": 0},
			"total":  oaMap{"type": "integer", "minimum": 0},
		}, "offset", "limit", "total"),
		"Deployment": oaObject(oaMap{
			"id":         oaString("Deployment id."),
			"name":       oaType("string"),
			"created_at": oaMap{"type": "string", "format": "date-time"},
		}, "id", "name", "created_at"),
		"DeploymentsListResponse": oaObject(oaMap{
			"data":       oaObject(oaMap{"deployments": oaArray(oaRef("Deployment"))}, "deployments"),
			"pagination": oaRef("Pagination"),
		}, "data", "pagination"),
		"Environment": oaObject(oaMap{
			"id":   oaType("string"),
			"name": oaType("string"),
			"type": oaEnum("production", "staging", "development"),
			"api_credentials": oaObject(oaMap{
				"rest": oaObject(oaMap{"url": oaType("string")}, "url"),
				"sql":  oaObject(oaMap{"host": oaType("string"), "port": oaType("integer")}, "host", "port"),
			}),
		}, "id", "name", "type", "api_credentials"),
		"EnvironmentsListResponse": oaObject(oaMap{
			"data":       oaObject(oaMap{"environments": oaArray(oaRef("Environment"))}, "environments"),
			"pagination": oaRef("Pagination"),
		}, "data", "pagination"),

		"CreateDeploymentEnvironmentTokenInput": oaObject(oaMap{
			"security_context": oaMap{"type": "object", "additionalProperties": true,
				"description": "Embedded in the token; controls which parts of the data model are visible."},
			"expires_in": oaNullable(oaMap{"type": "integer", "minimum": 1, "default": 86400, "description": "Lifetime in seconds."}),
		}, "security_context"),
		"DeploymentEnvironmentToken": oaObject(oaMap{
			"token":      oaString("Signed JWT, valid for metadata endpoints only."),
			"created_at": oaMap{"type": "string", "format": "date-time"},
			"expires_at": oaMap{"type": "string", "format": "date-time"},
		}, "token", "created_at", "expires_at"),
		"DeploymentEnvironmentTokenResponse": oaObject(oaMap{"data": oaRef("DeploymentEnvironmentToken")}, "data"),
		"CreateDeploymentTokenInput": oaObject(oaMap{
			"expiresIn": oaNullable(oaMap{"type": "integer", "minimum": 60, "maximum": 86400, "default": 86400, "description": "Lifetime in seconds."}),
		}),
		"DeploymentTokenResponse": oaObject(oaMap{"cubeApiToken": oaString("Data API token (JWT).")}, "cubeApiToken"),

		"DeploymentVersion": oaObject(oaMap{
			"releaseChannelVersion": oaString("Value to pass when switching: <image_repo>:v<semver>."),
			"version":               oaType("string"),
			"releaseChannel":        oaType("string"),
			"isLatestInChannel":     oaType("boolean"),
			"isCurrent":             oaType("boolean"),
		}, "releaseChannelVersion", "version", "releaseChannel", "isLatestInChannel", "isCurrent"),
		"DeploymentVersionsResponse": oaObject(oaMap{"data": oaArray(oaRef("DeploymentVersion"))}, "data"),
		"UpdateDeploymentInput": oaObject(oaMap{
			"releaseChannelVersion":     oaNullable(oaString("<semver>, v<semver> or <image_repo>:v<semver>; must be listed by the versions operation.")),
			"releaseChannel":            nstr(),
			"releaseChannelVersionHold": nbool(),
			"cloudProvider":             nstr(),
			"region":                    nstr(),
			"template":                  nstr(),
			"templateVariables":         oaNullable(oaMap{"type": "object", "additionalProperties": true, "description": "Merged key by key."}),
			"defaultLaunchpadViewGroup": nstr(),
			"launchpadTabs":             nstrs(),
			"creationMethod":            nstr(),
			"deployMode":                nstr(),
		}),
		"DeploymentSettings": oaMap{
			"type": "object",
			"properties": oaMap{
				"id":                        oaType("integer"),
				"name":                      oaType("string"),
				"releaseChannel":            oaType("string"),
				"releaseChannelVersion":     oaType("string"),
				"releaseChannelVersionHold": oaType("boolean"),
				"templateVariables":         oaMap{"type": "object", "additionalProperties": true},
				"cloudProvider":             nstr(),
				"region":                    nstr(),
				"template":                  nstr(),
				"defaultLaunchpadViewGroup": nstr(),
				"launchpadTabs":             nstrs(),
				"creationMethod":            nstr(),
				"deployMode":                nstr(),
			},
			"required":             []string{"id", "name", "releaseChannel", "releaseChannelVersion", "releaseChannelVersionHold"},
			"additionalProperties": true,
		},
		"SetBranchStagingEnvironmentRequest": oaObject(oaMap{
			"enabled":    oaType("boolean"),
			"branchName": oaNullable(oaString("Give exactly one of branchName and branchId.")),
			"branchId":   oaNullable(oaType("integer")),
		}, "enabled"),
		"Branch": oaObject(oaMap{
			"id":                          oaType("number"),
			"name":                        oaType("string"),
			"parentBranch":                oaType("string"),
			"lastHash":                    oaType("string"),
			"isStagingEnvironmentEnabled": oaType("boolean"),
		}, "id", "name"),
		"SetBranchStagingEnvironmentResponse": oaObject(oaMap{"data": oaRef("Branch")}, "data"),

		"StartDashboardExportInput": oaObject(oaMap{
			"format":            oaEnum("png", "pdf"),
			"dashboardId":       oaNullable(oaMap{"type": "integer", "description": "Give exactly one of dashboardId and dashboardPublicId."}),
			"dashboardPublicId": nstr(),
			"filters":           oaNullable(oaArray(oaRef("DashboardFilterInput"))),
			"timeGrains":        oaNullable(oaArray(oaRef("DashboardTimeGrainInput"))),
			"memberSwitchers":   oaNullable(oaArray(oaRef("DashboardMemberSwitcherInput"))),
			"renderAs":          oaNullable(oaRef("ExportSubjectInput")),
		}, "format"),
		"DashboardFilterInput": oaObject(oaMap{
			"member": member,
			"operator": oaNullable(oaEnum("equals", "not_equals", "greater_than", "greater_than_or_equal", "less_than",
				"less_than_or_equal", "contains", "not_contains", "starts_with", "not_starts_with", "ends_with",
				"not_ends_with", "is_null", "is_not_null", "is_empty", "is_not_empty", "between", "custom")),
			"value": oaMap{"type": []string{"string", "number", "boolean", "array", "null"}},
		}, "member"),
		"DashboardTimeGrainInput":      oaObject(oaMap{"member": member, "grain": oaType("string")}, "member", "grain"),
		"DashboardMemberSwitcherInput": oaObject(oaMap{"member": member, "selected": oaType("string")}, "member", "selected"),
		"ExportSubjectInput": oaObject(oaMap{
			"type":            oaEnum("USER", "EMBED_USER"),
			"userId":          oaNullable(oaType("integer")),
			"email":           nstr(),
			"embedTenantName": nstr(),
			"externalId":      nstr(),
			"groups":          nstrs(),
			"securityContext": oaNullable(oaMap{"type": "object", "additionalProperties": true}),
			"userAttributes":  oaNullable(oaArray(oaRef("UserAttributeInput"))),
		}, "type"),
		"DashboardExportJobResponse": oaObject(oaMap{
			"jobId":     oaType("string"),
			"expiresAt": oaMap{"type": "string", "format": "date-time"},
		}, "jobId", "expiresAt"),
		"DashboardExportStatusResponse": oaObject(oaMap{
			"status":      oaEnum("pending", "processing", "completed", "failed"),
			"progress":    oaNullable(oaMap{"type": "integer", "minimum": 0, "maximum": 100}),
			"error":       oaString("Why the render failed (failed only)."),
			"contentType": oaString("Content type of the file (completed only)."),
		}, "status"),
	}

	return oaMap{
		"securitySchemes": oaMap{
			"bearerAuth": oaMap{"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API key>"},
			"apiKeyAuth": oaMap{"type": "apiKey", "in": "header", "name": "Authorization",
				"description": "Authorization: Api-Key <API key> (embed session operations)"},
		},
		"responses": responses,
		"schemas":   schemas,
	}
}

// oaDescribe adds a description to s.
func oaDescribe(s oaMap, desc string) oaMap {
	s["description"] = desc
	return s
}
