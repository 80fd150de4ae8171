package bench

import (
	"bytes"
	"testing"
)

// BenchmarkParse reports parse throughput for each tool's largest input;
// `go test -bench Parse -benchmem` prints the figures.
func BenchmarkParse(b *testing.B) {
	for _, file := range []string{
		"sysbench-1.0-oltp_insert-innodb-run.txt",
		"captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt",
		"captured-mariadb-slap-10.11-debug-info-after.txt",
		"db-insert-run.txt",
	} {
		data := readFile(b, "testdata/"+file)
		b.Run(file, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseAuto(file, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
