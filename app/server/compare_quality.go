package server

import (
	"errors"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/sweep"
)

// The Compare settings dialog's quality fields, as it labels them.
const (
	compareQualityName = "Measure quality"
	budgetKLDName      = "KLD mean at most"
	budgetTop1Name     = "Top-1 agreement at least"
)

// compareQuality is the dialog's quality: off, or the baseline recorded as
// the reference after its matrix and every configuration compared with it,
// the cells answered within a budget (sweep.QualitySetup).
type compareQuality struct {
	On         *widget.Check
	Kld, Top1  *widget.Entry
	Fields     *fyne.Container
	Problem    *widget.Label
	Setup      *sweep.QualitySetup // what Start runs; nil when off or not valid
	invalidErr error               // why the budget does not read
}

// newCompareQuality builds the quality fields, at the default budget;
// changed hears every edit.
func newCompareQuality(changed func()) *compareQuality {
	q := &compareQuality{Kld: widget.NewEntry(), Top1: widget.NewEntry(), Problem: widget.NewLabel("")}
	d := quality.DefaultBudget()
	q.Kld.SetText(strconv.FormatFloat(d.KLD, 'g', -1, 64))
	q.Top1.SetText(strconv.FormatFloat(d.Top1Pct, 'g', -1, 64) + " %")
	q.Kld.OnChanged, q.Top1.OnChanged = func(string) { changed() }, func(string) { changed() }
	q.On = widget.NewCheck(compareQualityName+": record the baseline as the reference, then compare every configuration's drift with it", func(bool) { changed() })
	q.Problem.Importance, q.Problem.Wrapping = widget.DangerImportance, fyne.TextWrapWord
	q.Problem.Hide()
	entry := func(e *widget.Entry) fyne.CanvasObject { return container.New(&app.FixedWidth{Width: 110}, e) }
	q.Fields = container.NewHBox(widget.NewLabel(budgetKLDName), entry(q.Kld), widget.NewLabel("nats ·"), widget.NewLabel(budgetTop1Name), entry(q.Top1))
	return q
}

// Object is the fields as the dialog shows them.
func (q *compareQuality) Object() fyne.CanvasObject {
	return container.NewVBox(q.On, q.Fields, q.Problem)
}

// Read checks the fields: setup is what a sweep runs (nil when off); err
// says, in the fields' words, why the budget does not Read.
func (q *compareQuality) Read() error {
	q.Setup, q.invalidErr = nil, nil
	appwidget.ShowIf(q.Fields, q.On.Checked)
	q.Problem.Hide()
	if !q.On.Checked {
		return nil
	}
	b, err := readBudget(q.Kld.Text, q.Top1.Text)
	if err != nil {
		q.invalidErr = err
		q.Problem.SetText(appwidget.Sentence(err.Error()))
		q.Problem.Show()
		return err
	}
	q.Setup = &sweep.QualitySetup{Budget: b.String(), NeedleTrials: probe.DefaultNeedleTrials}
	return nil
}

// readBudget reads the budget fields (quality.ParseBudget keeps the rule);
// an empty field bounds nothing, but one must bound something. The error
// names the field and what to write in it.
func readBudget(kld, top1 string) (quality.Budget, error) {
	kld, top1 = strings.TrimSpace(kld), strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(top1), "%"))
	if kld == "" && top1 == "" {
		return quality.Budget{}, errors.New("quality budget: write a " + budgetKLDName + " (e.g. 0.01) or a " + budgetTop1Name + " (e.g. 98 %)")
	}
	var b quality.Budget
	if kld != "" {
		k, err := quality.ParseBudget("kld=" + kld)
		if err != nil || strings.ContainsAny(kld, ", ;") {
			return b, errors.New(budgetKLDName + ": write a KL divergence in nats, a positive number such as 0.01")
		}
		b.KLD = k.KLD
	}
	if top1 != "" {
		t, err := quality.ParseBudget("top1=" + top1)
		if err != nil || strings.ContainsAny(top1, ", ;") {
			return b, errors.New(budgetTop1Name + ": write a percentage above 0 and at most 100, such as 98 %")
		}
		b.Top1Pct = t.Top1Pct
	}
	return b, nil
}
