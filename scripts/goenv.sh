# Sourced (not run) by the scripts that build or test: the Go settings they
# share. Go from /usr/local/go when it is not on the PATH, and gcc quiet
# about go-nvml: its cgo wrappers call NVML functions that NVIDIA's header
# marks deprecated, and a build that compiles them (the first one, or after
# `go clean -cache`) printed about 145 lines of warnings that look like a
# failure. Go's default -O2 -g stays; a CGO_CFLAGS of your own is kept and
# gets the one flag added.
export PATH="$PATH:/usr/local/go/bin"
case " ${CGO_CFLAGS:-} " in
*" -Wno-deprecated-declarations "*) ;;
*) export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations" ;;
esac
