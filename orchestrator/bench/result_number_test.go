package bench

import (
	"encoding/json"
	"testing"
)

func TestParseNumber(t *testing.T) {
	good := []string{"0", "0.00", "4.890", "959574.00", "-0.5", "123792", "18446744073709551616.5"}
	for _, s := range good {
		n, err := ParseNumber(s)
		if err != nil || n.String() != s || !n.IsSet() {
			t.Errorf("ParseNumber(%q) = %q, %v", s, n, err)
		}
		if b, _ := json.Marshal(n); string(b) != s {
			t.Errorf("marshal %q = %s: the printed digits must pass through verbatim", s, b)
		}
	}
	bad := []string{"", "-", ".5", "5.", "+1", "01", "1e5", "nan", "-nan", "inf", "1,5", "0x10", " 1", "1 ", "1.2.3"}
	for _, s := range bad {
		if n, err := ParseNumber(s); err == nil {
			t.Errorf("ParseNumber(%q) = %q, want an error", s, n)
		}
	}
	if f := mustNumber(t, "2573.78").Float64(); f != 2573.78 {
		t.Errorf("Float64 = %v", f)
	}
	if (Number{}).Float64() != 0 || (Number{}).IsSet() {
		t.Error("zero Number must be unset and 0")
	}
}

func TestNumberJSON(t *testing.T) {
	var v struct {
		A, B, C Number
	}
	if err := json.Unmarshal([]byte(`{"A": 4.890, "B": null, "C": 1.5e-3}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A.String() != "4.890" || v.B.IsSet() || v.C.String() != "1.5e-3" {
		t.Errorf("unmarshal = %+v", v)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"A":4.890,"B":null,"C":1.5e-3}` {
		t.Errorf("marshal = %s", out)
	}
	for _, bad := range []string{`"4.8"`, `true`, `[1]`, `1e`, `1e+-5`, `01`} {
		var n Number
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("Unmarshal(%s) = %q, want an error", bad, n)
		}
	}
}

func TestShiftPoint(t *testing.T) {
	tests := map[string]string{
		"319.7719": "319771.9", "5.0002": "5000.2", "0.0001": "0.1", "12.3": "12300",
		"0.0000": "0.0", "7": "7000", "123.456": "123456", "-1.5": "-1500",
	}
	for in, want := range tests {
		if got := shiftPoint(mustNumber(t, in), 3).String(); got != want {
			t.Errorf("shiftPoint(%s, 3) = %s, want %s", in, got, want)
		}
		if _, err := ParseNumber(shiftPoint(mustNumber(t, in), 3).String()); err != nil {
			t.Errorf("shiftPoint(%s) is no valid Number: %v", in, err)
		}
	}
	if shiftPoint(Number{}, 3).IsSet() {
		t.Error("an unset Number stays unset")
	}
}

func TestLatencyJSON(t *testing.T) {
	l := Latency{Min: mustNumber(t, "1.89"), Avg: mustNumber(t, "12.41"), Max: mustNumber(t, "93.29"),
		Pct: mustNumber(t, "24.38"), Sum: mustNumber(t, "959574.00"), Percentile: 95}
	b, err := json.Marshal(l)
	if err != nil || string(b) != `{"min":1.89,"avg":12.41,"max":93.29,"p95":24.38,"sum":959574.00}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var back Latency
	if err := json.Unmarshal(b, &back); err != nil || back != l {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	// An interrupted run knows the percentile but not its value.
	b, _ = json.Marshal(Latency{Percentile: 99})
	if string(b) != `{"min":null,"avg":null,"max":null,"p99":null,"sum":null}` {
		t.Errorf("empty latency = %s", b)
	}
	for _, bad := range []string{`{"pxx": 1}`, `{"p95": 1, "p99": 2}`, `{"p0": 1}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}
