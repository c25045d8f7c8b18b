package emulator

import "time"

type timeT = time.Time

var fixedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
