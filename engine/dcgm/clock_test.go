package dcgm

import "speedmatrix/hw"

func hwClock(c *fakeClock) hw.SamplerOption { return hw.WithClock(c) }
