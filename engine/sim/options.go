package sim

import "time"

// Faults injects failures into a Server, for testing how a client copes.
type Faults struct {
	// ErrorRate is the fraction of generation requests answered with HTTP 500.
	ErrorRate float64
	// DisconnectAfterTokens drops a stream's connection after this many
	// tokens (0: never). It and StallAfterTokens apply to streams only.
	DisconnectAfterTokens int
	// StallAfterTokens stops sending after this many tokens while keeping the
	// connection open until the client gives up (0: never).
	StallAfterTokens int
	// StartupDelay makes /health and /v1/* answer 503 for this long after New.
	StartupDelay time.Duration
}

// Options configures a Server.
type Options struct {
	Profile Profile
	// APIKey, when set, makes /v1/* require (as vLLM's --api-key does)
	// "Authorization: Bearer KEY"; other keys get vLLM's 401.
	APIKey string
	// TimeScale runs the model this many times faster than real time; 0 means 1.
	TimeScale float64
	Faults    Faults
	// Seed selects the generated text (0 is a valid seed).
	Seed int64
}
