package app

import (
	"errors"
	"testing"
)

// TestPriceFieldsSayTheField: a price that is not one names its field on
// the Settings screen, in the words ProblemNotice shows.
func TestPriceFieldsSayTheField(t *testing.T) {
	for _, tc := range []struct {
		f    PriceField
		text string
		want string
	}{
		{RentField, "abc", `GPU rent: "abc" is not a number.`},
		{RentField, "-1", "GPU rent: the price is negative (-1)."},
		{RentField, "1e12", "GPU rent: the price is more than 10000 USD per hour (1e+12)."},
		{ElectricityField, "1e12", "Electricity price: the price is more than 10 USD per kWh (1e+12)."},
	} {
		_, err := tc.f.Parse(tc.text)
		var fe *FieldError
		if !errors.As(err, &fe) || ProblemNotice(err).Message != tc.want {
			t.Errorf("%s %q: %v, want %q", tc.f.Name, tc.text, err, tc.want)
		}
	}
	if v, err := RentField.Parse(" 2.50 "); v != 2.5 || err != nil {
		t.Errorf("2.50: %v, %v", v, err)
	}
	if v, err := ElectricityField.Parse(""); v != 0 || err != nil {
		t.Errorf("empty: %v, %v", v, err)
	}
}
