package replication

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints a Status for people: one row per server, then every
// problem, then the canary's journey when Verify wrote one.
func WriteTable(w io.Writer, s *Status) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tROLE\tSERVER\tENGINE\tRO\tIO\tSQL\tSEMI-SYNC\tCLIENTS\tYES_TX\tNO_TX\tLAG_S\tLAG_TX\tSTATE")
	for _, h := range s.hosts() {
		state := "ok"
		switch {
		case h.Error != "":
			state = "unreadable"
		case len(h.Problems) > 0:
			state = fmt.Sprintf("%d problem(s)", len(h.Problems))
		}
		ioRun, sqlRun := "-", "-"
		if h.Replica != nil {
			ioRun, sqlRun = h.Replica.IORunning, h.Replica.SQLRunning
		} else if h.Role == roleSlave && h.Error == "" {
			ioRun, sqlRun = "none", "none"
		}
		semi, clients, yes, no := "-", "-", "-", "-"
		if ss := h.SemiSync; ss != nil {
			semi = onOff(ss.Active)
			if ss.Active != ss.Enabled {
				semi += " (enabled=" + onOff(ss.Enabled) + ")"
			}
			clients, yes, no = optInt(ss.Clients), optInt(ss.YesTx), optInt(ss.NoTx)
		}
		lagS, lagTx := "-", "-"
		if h.Lag != nil {
			lagS, lagTx = optInt(h.Lag.Seconds), optInt(h.Lag.Transactions)
		}
		ro := "-"
		if h.ReadOnly != nil {
			ro = map[bool]string{true: "yes", false: "no"}[*h.ReadOnly]
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			h.Name, h.Address, h.Role, orDash(h.Server), orDash(strings.ToLower(h.DefaultEngine)), ro,
			ioRun, sqlRun, semi, clients, yes, no, lagS, lagTx, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range s.Problems() {
		b.WriteString("problem: " + p + "\n")
	}
	if c := s.Canary; c != nil {
		fmt.Fprintf(&b, "canary %s at master GTID %s:\n", c.Token, c.MasterGTID)
		for _, a := range c.Slaves {
			if a.Seen {
				fmt.Fprintf(&b, "  %s: seen after %.3fs\n", a.Host, a.Waited.Seconds())
			} else {
				fmt.Fprintf(&b, "  %s: NOT seen: %s\n", a.Host, a.Error)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func optInt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
