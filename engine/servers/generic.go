package servers

// Generic is an OpenAI-compatible server that is neither vLLM nor SGLang:
// it reports no limits, and the checks look for vLLM's metrics on it.
var Generic Kind = genericKind{}

type genericKind struct{}

// genericEntry is any other OpenAI-compatible server in Registry: what
// Detect finds when nothing else matched. Launch does not start it and the
// simulator does not speak as it.
var genericEntry = Entry{Name: genericKind{}.Name(), Title: genericKind{}.Name()}

func (genericKind) Name() string             { return "OpenAI-compatible server" }
func (genericKind) Version() string          { return "" }
func (genericKind) Limits() (Limits, string) { return Limits{}, "" }
func (genericKind) AbortsByID() bool         { return false }
func (genericKind) Checks() Checks           { return vllmChecks }
