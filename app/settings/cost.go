package settings

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// costCard is the Settings screen's prices: the user's own figures, which
// each run records and prices its decode cells by; empty, no cost is shown.
func (s *Tab) costCard(col *appwidget.FormColumn) fyne.CanvasObject {
	field := func(e *widget.Entry, unit, example string) fyne.CanvasObject {
		e.SetPlaceHolder(example)
		return container.NewHBox(container.NewGridWrap(fyne.NewSize(130, e.MinSize().Height), e), widget.NewLabel(unit))
	}
	form := col.Form(
		appwidget.FormRow{Label: app.RentField.Name, Field: field(s.Rent, "USD per hour", "2.50"),
			Hint: "What the GPU box costs to rent: its share of each cell's price per million output tokens is rent ÷ 3,600 ÷ total tok/s × 10⁶. Empty: left out."},
		appwidget.FormRow{Label: app.ElectricityField.Name, Field: field(s.Electricity, "USD per kWh", "0.30"),
			Hint: "Applied to each cell's measured energy (kWh per output token × price). Empty: left out."})
	return widget.NewCard("Cost", "your own prices; nothing is guessed: with none, no cost is shown", form)
}

// readPrices is the price fields as prices, or the first that is not one.
func (s *Tab) readPrices() (engine.Prices, error) {
	var p engine.Prices
	var err error
	if p.PerHourUSD, err = app.RentField.Parse(s.Rent.Text); err != nil {
		return engine.Prices{}, err
	}
	if p.PerKWhUSD, err = app.ElectricityField.Parse(s.Electricity.Text); err != nil {
		return engine.Prices{}, err
	}
	return p, nil
}
