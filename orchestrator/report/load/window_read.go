package load

import (
	"math"
	"strings"
	"time"
)

// LoadBounds reads the measured load from events.jsonl (load_start,
// load_end): the load's start on the monitors' clock (seconds after
// start) and its end in load seconds. Older runs have neither: the load
// starts with the monitors (0) and its end is not recorded (NaN).
func LoadBounds(events []Event, start time.Time) (offsetS, endS float64) {
	offsetS, endS = 0, math.NaN()
	var from time.Time
	for _, e := range events {
		switch e.Kind {
		case "load_start":
			if from.IsZero() {
				from = e.T
				if !start.IsZero() {
					offsetS = e.T.Sub(start).Seconds()
				}
			}
		case "load_end":
			if !from.IsZero() && math.IsNaN(endS) {
				endS = e.T.Sub(from).Seconds()
			}
		}
	}
	return offsetS, endS
}

// stackTool is the stack sampler a stacks_start event names ("up to 3
// gdb snapshots 2s apart"), "" for any other event.
func stackTool(e Event) string {
	if e.Kind != "stacks_start" {
		return ""
	}
	for _, tool := range []string{"gdb", "perf"} {
		if strings.Contains(e.Detail, tool) {
			return tool
		}
	}
	return ""
}

// InstrumentsText words results.json's instruments: "monitors on, stacks
// gdb in the profiling tail".
func InstrumentsText(monitors bool, stacks, in string) string {
	s := "monitors off"
	if monitors {
		s = "monitors on"
	}
	switch {
	case stacks == "" || stacks == "off":
		return s + ", no stack sampling"
	case in == "tail":
		return s + ", stacks " + stacks + " in the profiling tail after the load"
	}
	return s + ", stacks " + stacks + " inside the load (excluded)"
}
