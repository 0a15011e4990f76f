package dcgm

import "speedmatrix/engine/telemetry"

func hwClock(c *fakeClock) telemetry.SamplerOption { return telemetry.WithClock(c) }
