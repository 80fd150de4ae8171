package topology

import "encoding/json"

// MarshalJSON writes connect_timeout as a duration ("10s") rather than
// nanoseconds, so `orch inventory --json` shows what the file says.
func (c SSHConfig) MarshalJSON() ([]byte, error) {
	type plain SSHConfig // no MarshalJSON: avoids recursion
	var timeout string
	if c.ConnectTimeout != 0 {
		timeout = c.ConnectTimeout.String()
	}
	return json.Marshal(struct {
		plain
		// Shadows plain.ConnectTimeout: the shallower field wins.
		ConnectTimeout string `json:"connect_timeout,omitempty"`
	}{plain(c), timeout})
}
