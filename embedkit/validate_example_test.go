package embedkit_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func ExampleGenerateSessionRequest_Validate() {
	r := &embedkit.GenerateSessionRequest{
		DeploymentID:    42,
		ExternalID:      "user-42",
		EmbedTenantName: "Acme",
		TenantGroups:    []string{"analysts"},
		UserAttributes: []embedkit.UserAttributeInput{
			{Name: "region", Value: "emea"},
			{Name: "region", Value: map[string]any{"nested": true}},
		},
		Settings: &embedkit.EmbedSessionSettings{Locale: new("en_US")},
	}
	err := r.Validate()

	var ve *embedkit.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(errors.Is(err, embedkit.ErrInvalidRequest), ve.Op)
		for _, p := range ve.Problems {
			fmt.Println(p.Field+":", p.Rule)
		}
	}
	// Output:
	// true generate-session
	// embedTenantName: must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$
	// tenantGroups: requires creatorMode: true
	// userAttributes[1].name: duplicate name "region"
	// userAttributes[1].value: must be a string, number, boolean, array of strings, array of numbers, or null
	// settings.locale: must be a well-formed BCP-47 language tag, such as de-DE
}

func ExampleParseVersion() {
	for _, s := range []string{"1.7.20", "v1.7.20", "platform/runtime:v1.7.20", "registry.example.com:5000/org/img:v2.0.0-rc.1", "1.7"} {
		v, err := embedkit.ParseVersion(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(v)
	}
	// Output:
	// 1.7.20
	// 1.7.20
	// 1.7.20
	// 2.0.0-rc.1
	// embedkit: invalid version request: releaseChannelVersion: must be MAJOR.MINOR.PATCH, vMAJOR.MINOR.PATCH or IMAGE:vMAJOR.MINOR.PATCH (semantic version)
}

func ExampleParseSettings() {
	s, err := embedkit.ParseSettings(map[string]any{"allowAi": false, "locale": "de-DE"})
	fmt.Println(*s.AllowAI, *s.Locale, err)

	_, err = embedkit.ParseSettings(map[string]any{"showDashboardHeader": false})
	fmt.Println(err)
	// Output:
	// false de-DE <nil>
	// embedkit: settings: "showDashboardHeader" is an iframe URL parameter, not a session setting; set it on the embed URL
}

func ExampleUpdateDeploymentRequest_Validate() {
	// Every field of the partial update is optional; the enumerated ones
	// take only the platform's values.
	fmt.Println((&embedkit.UpdateDeploymentRequest{}).Validate())
	err := (&embedkit.UpdateDeploymentRequest{ReleaseChannel: "stable", DeployMode: "git"}).Validate()
	fmt.Println(err)
	// Output:
	// <nil>
	// embedkit: invalid update-deployment request: releaseChannel: must be one of latest, release
}

func ExampleAuditLogOptions_Validate() {
	berlin := time.FixedZone("CET", 3600)
	// A day in its own location is sent as that date: start=2024-01-01.
	fmt.Println((&embedkit.AuditLogOptions{Start: time.Date(2024, 1, 1, 0, 0, 0, 0, berlin)}).Validate())
	// The platform takes dates: a time of day is refused, not cut off.
	fmt.Println((&embedkit.AuditLogOptions{End: time.Date(2024, 1, 31, 18, 0, 0, 0, berlin)}).Validate())
	// Output:
	// <nil>
	// embedkit: invalid audit-log-export request: end: must be a date: midnight in its own location, with no time of day (the platform takes an ISO 8601 date, YYYY-MM-DD)
}
