package sweep

import "bytes"

type bytesBuffer struct{ bytes.Buffer }
