package quality

import (
	"encoding/json"
	"fmt"
	"io"

	"speedmatrix/engine"
)

// MaxReportBytes is the largest quality.json ReadReport reads: a report of
// 256 contexts with 100,000 task items is under 2 MiB.
const MaxReportBytes = 32 << 20

// ReadReport reads a quality.json (an interrupted comparison, to go on
// from): at most MaxReportBytes, every string bounded (names to
// engine.BoundName), every count within the bounds of a report's quality
// section (engine.QualityReport.Problem); a *ReferenceError otherwise.
func ReadReport(r io.Reader) (Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReportBytes+1))
	if err != nil {
		return Report{}, err
	}
	if len(data) > MaxReportBytes {
		return Report{}, fmt.Errorf("it is over %d MiB: not a quality.json this build writes", MaxReportBytes>>20)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return Report{}, fmt.Errorf("it is not a quality.json (%v)", err)
	}
	engine.BoundStrings(&rep)
	rep.Reference.Model, rep.Server.Model = engine.BoundName(rep.Reference.Model), engine.BoundName(rep.Server.Model)
	if p := rep.Problem(); p != "" {
		return Report{}, fmt.Errorf("it is not a quality.json this build writes: %s", p)
	}
	return rep, nil
}
