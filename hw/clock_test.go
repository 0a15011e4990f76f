package hw

import "time"

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
