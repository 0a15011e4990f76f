package charts

// htmlPageTemplate is report.html. html/template escapes every string put
// into it for where it lands (text, attribute, style); only the inline
// SVGs (our own renderer's, its text XML-escaped), the style sheet and
// the script are trusted as they are.
const htmlPageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="Speed Matrix">
<title>{{.Title}} · {{.Model}}</title>
<style>{{.Style}}</style>
</head>
<body>
<main>
{{range .Banners}}<div class="banner banner-{{.Kind}}" role="note">{{.Text}}</div>
{{end}}<header class="top"><div>
<h1>{{.Title}}</h1>
<p class="model">{{.Model}}</p>
<p class="sub">{{.Subtitle}}</p>
</div><button id="theme" type="button" title="Switch between light and dark">Light / dark</button></header>
{{range .Warnings}}<p class="banner banner-partial">{{.}}</p>
{{end}}<div class="cols" id="about">
{{range .Sections}}<section><h2>{{.Title}}</h2><dl>{{range .Rows}}<dt>{{.Key}}</dt><dd>{{.Value}}</dd>{{end}}</dl></section>
{{end}}</div>
{{with .Launch}}<section id="launch"><h2>Launch command</h2><pre>{{.}}</pre></section>
{{end}}{{with .Load}}{{template "load" .}}{{end}}{{with .Prefill}}<section id="prefill"><h2>Prefill</h2>{{template "figure" .}}</section>
{{end}}{{with .Decode}}<section id="decode"><h2>{{.Title}}</h2>{{template "heat" .}}</section>
{{end}}{{with .Pareto}}<section id="pareto"><h2>Throughput against interactivity</h2>{{template "figure" .}}</section>
{{end}}{{with .SLO}}<section id="slo"><h2>SLO</h2><p>{{.Text}}</p>{{template "lines" .Lines}}</section>
{{end}}{{with .Checks}}<section id="checks"><h2>Checks and flags</h2>{{range .Lines}}<p>{{.}}</p>{{end}}{{with .Table}}{{template "table" .}}{{end}}{{with .Cache}}<h3>Prefix cache and reasoning</h3>{{template "table" .}}{{end}}{{with .Flags}}<h3>Flagged cells</h3>{{template "lines" .}}{{end}}</section>
{{end}}{{with .Energy}}<section id="energy"><h2>Energy and cost</h2>{{range .Lines}}<p>{{.}}</p>{{end}}{{with .Heat}}<h3>{{.Title}}</h3>{{template "heat" .}}{{end}}{{with .Cost}}<h3>{{.Title}}</h3>{{template "heat" .}}{{end}}</section>
{{end}}{{with .Roofline}}<section id="roofline"><h2>Roofline share</h2>{{range .Lines}}<p>{{.}}</p>{{end}}{{with .Heat}}{{template "heat" .}}{{end}}</section>
{{end}}{{with .Quality}}{{template "quality" .}}{{end}}{{with .Measurements}}<section id="measurements"><h2>{{.Title}}</h2>{{template "table" .}}</section>
{{end}}{{with .Notes}}<section id="notes"><h2>Notes</h2>{{template "lines" .}}</section>
{{end}}<p class="muted">Written by Speed Matrix. Hover or tap a heatmap cell for all its figures; click a column heading of All measurements to sort.</p>
</main>
<div id="tip" role="tooltip" hidden></div>
<script>{{.Script}}</script>
</body>
</html>
{{define "lines"}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{define "figure"}}{{if .Light}}<figure aria-label="{{.Title}}"><span class="svg-light">{{.Light}}</span><span class="svg-dark">{{.Dark}}</span></figure>{{end}}{{with .Table}}{{template "table" .}}{{end}}{{range .Notes}}<p class="muted">{{.}}</p>{{end}}{{with .Flags}}{{template "lines" .}}{{end}}{{end}}
{{define "table"}}{{range .NotesBefore}}<p class="muted">{{.}}</p>{{end}}<div class="scroll"><table{{if .Sortable}} class="sortable"{{end}}><thead><tr>{{range .Columns}}<th{{if .Right}} class="r"{{end}} scope="col">{{.Title}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr class="st-{{.Status}}">{{range $i, $c := .Cells}}<td{{if index $.Right $i}} class="r"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{range .NotesAfter}}<p class="muted">{{.}}</p>{{end}}{{with .Errors}}<h3>Errors</h3>{{template "lines" .}}{{end}}{{end}}
{{define "heat"}}<p class="sub">{{.Subtitle}}</p><div class="scroll"><table class="heat"><thead><tr><th class="row" scope="col">{{.RowHeader}}</th>{{range .Cols}}<th scope="col">{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr><th class="row" scope="row">{{.Label}}</th>{{range .Cells}}<td class="hc hc-{{.Kind}}{{if .Miss}} miss{{end}}"{{with .Style}} style="{{.}}"{{end}} tabindex="0" title="{{.Tip}}"><b>{{.Text}}</b>{{with .Detail}}<small>{{.}}</small>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div><p class="muted">{{.Scale}}</p>{{range .Legend}}<p class="muted">{{.}}</p>{{end}}{{range .Notes}}<p class="muted">{{.}}</p>{{end}}{{with .Flags}}{{template "lines" .}}{{end}}{{end}}
{{define "quality"}}<section id="quality"><h2>{{.Title}}</h2>{{with .Simulated}}<p class="banner banner-simulated">{{.}}</p>{{end}}<p>{{.Compared}}</p>{{template "figure" .Figure}}{{with .Drift}}<h3>Drift by context</h3>{{template "table" .}}{{end}}{{with .Needle}}<h3>Needle retrieval</h3>{{template "table" .}}{{end}}{{with .Tasks}}<h3>Tasks</h3>{{template "table" .}}{{end}}{{with .Flipped}}<h3>Items that flipped against the reference</h3>{{template "lines" .}}{{end}}</section>
{{end}}
{{define "load"}}<section id="load"><h2>Load test</h2><p>{{.Plan}}</p>{{with .Replay}}<p>{{.}}</p>{{end}}{{with .Limit}}<p>{{.}}</p>{{end}}{{range .Figures}}{{template "figure" .}}{{end}}<h3>By rate</h3>{{template "table" .Table}}{{with .Turns}}<h3>TTFT by turn</h3>{{template "table" .}}{{end}}{{with .Flags}}{{template "lines" .}}{{end}}</section>
{{end}}`
