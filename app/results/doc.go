// Package results is the Results screen: a finished run's charts, its
// measurements and checks, a load test's or a sweep's summary, and the
// exports. It implements app.ReportViewer.
package results
