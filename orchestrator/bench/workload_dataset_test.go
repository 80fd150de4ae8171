package bench

import "testing"

func TestDatasetSQL(t *testing.T) {
	d := DatasetSpec{Database: "sb`x", Tables: []string{"sbtest1"}}
	if got := d.CreateDatabaseSQL(); got != "CREATE DATABASE IF NOT EXISTS `sb``x`" {
		t.Errorf("create: %s", got)
	}
}
