package engine

// Version is the Speed Matrix version, written into every report's Run
// section as the benchmark tool. main sets it from its build version.
var Version = "0.1.0"
