package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// QualityBudgetError says why a quality budget does not read: the item at
// fault ("" for the whole text) and what is wrong with it.
type QualityBudgetError struct {
	Item    string
	Problem string
}

// Error is "budget ITEM: PROBLEM".
func (e *QualityBudgetError) Error() string {
	if e.Item == "" {
		return "budget: " + e.Problem
	}
	return fmt.Sprintf("budget %q: %s", e.Item, e.Problem)
}

// ParseQualityBudget reads a quality budget like "kld=0.01,top1=98%":
// key=value items separated by commas, semicolons or spaces; kld a KL
// divergence in nats (a positive number), top1 a percentage in (0, 100]
// ("%" optional). A key not written is 0, bounding nothing; each may be
// written once. Errors are *QualityBudgetError, naming the item. It lives
// here, beside QualityReport.Budget, so that both the judge
// (quality.ParseBudget) and the pictures read the one form.
func ParseQualityBudget(s string) (kld, top1Pct float64, err error) {
	seen := map[string]bool{}
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
	if len(items) == 0 {
		return 0, 0, &QualityBudgetError{Problem: "it bounds nothing: write e.g. kld=0.01,top1=98%"}
	}
	for _, item := range items {
		key, value, ok := strings.Cut(item, "=")
		key = strings.ToLower(key)
		switch {
		case !ok || (key != "kld" && key != "top1"):
			return 0, 0, &QualityBudgetError{item, "not kld=NATS or top1=PERCENT"}
		case seen[key]:
			return 0, 0, &QualityBudgetError{item, key + " is given twice"}
		}
		seen[key] = true
		v, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
		bad := err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0
		switch {
		case key == "kld" && (bad || strings.HasSuffix(value, "%")):
			return 0, 0, &QualityBudgetError{item, "kld is a KL divergence in nats, a positive number such as 0.01"}
		case key == "top1" && (bad || v > 100):
			return 0, 0, &QualityBudgetError{item, "top1 is a percentage above 0 and at most 100, such as 98%"}
		case key == "kld":
			kld = v
		default:
			top1Pct = v
		}
	}
	return kld, top1Pct, nil
}

// Words is the verdict as every surface writes it: "at the noise floor",
// "real drift, above the noise floor" or "no noise floor to judge it by",
// then ", over the budget BUDGET" when it is over budget.
func (j QualityJudged) Words(budget string) string {
	words := "no noise floor to judge it by"
	if j.Floor {
		words = "at the noise floor"
		if j.Real {
			words = "real drift, above the noise floor"
		}
	}
	if j.OverBudget {
		words += ", over the budget " + budget
	}
	return words
}

// VerdictAt is the verdict on the drift at a context, when there is one.
func (q *QualityReport) VerdictAt(contextTokens int) (QualityJudged, bool) {
	for _, v := range q.Verdicts {
		if v.ContextTokens == contextTokens {
			return v, true
		}
	}
	return QualityJudged{}, false
}
