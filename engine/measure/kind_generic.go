package measure

// genericKind is an OpenAI-compatible server that is neither vLLM nor
// SGLang: it reports no limits and no metrics the checks read.
type genericKind struct{}

func (genericKind) Name() string                   { return "OpenAI-compatible server" }
func (genericKind) Version() string                { return "" }
func (genericKind) limits() (serverLimits, string) { return serverLimits{}, "" }
func (genericKind) abortsByID() bool               { return false }
func (genericKind) metrics() metricNames           { return vllmMetrics }
