package charts

import (
	"fmt"
	"os"
	"path/filepath"

	"speedmatrix/engine"
)

// WriteAll writes every picture of a report into dir, light theme at 1×:
// report.png, prefill.png, decode-heatmap.png, per-request.png and an .svg
// twin of each.
func WriteAll(dir string, r engine.Report) error {
	return WriteAllWith(dir, r, DefaultOptions())
}

// WriteAllWith is WriteAll with a chosen theme and scale. Each file is
// written to a temporary name and renamed, so a reader never sees half.
func WriteAllWith(dir string, r engine.Report, opts Options) error {
	opts, err := opts.check()
	if err != nil {
		return err
	}
	m := BuildModel(r)
	for _, kind := range Kinds {
		d, err := DrawModel(kind, m, opts)
		if err != nil {
			return err
		}
		png, err := d.PNG(opts.Scale)
		if err != nil {
			return fmt.Errorf("draw %s: %w", kind, err)
		}
		svg, err := d.SVG(opts.Scale)
		if err != nil {
			return fmt.Errorf("draw %s: %w", kind, err)
		}
		if err := writeAtomic(filepath.Join(dir, string(kind)+".png"), png); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(dir, string(kind)+".svg"), svg); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w (check that the folder exists and is writable)", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
