package charts

import (
	"fmt"
	"image/color"
	"strings"
)

// htmlScript is report.html's only script: the light/dark switch, the
// heatmap cells' popup (each cell's figures move from its title, the
// fallback without scripts, to data-tip) and the sortable tables. The page's CSP allows it
// by its hash (htmlCSP), so it must stay one constant.
const htmlScript = `(function(){var d=document,r=d.documentElement,tip=d.getElementById('tip');
function dark(){return r.dataset.theme?r.dataset.theme==='dark':matchMedia('(prefers-color-scheme: dark)').matches}
d.getElementById('theme').onclick=function(){r.dataset.theme=dark()?'light':'dark'};
[].forEach.call(d.querySelectorAll('table.heat td[title]'),function(c){c.setAttribute('data-tip',c.title);c.removeAttribute('title')});
var shown=null;function hide(){tip.hidden=true;shown=null}
function show(c){var t=c.getAttribute('data-tip');if(!t)return;shown=c;tip.textContent=t;tip.hidden=false;
var e=c.getBoundingClientRect(),w=r.clientWidth,x=Math.min(e.left,w-tip.offsetWidth-6);
tip.style.left=(Math.max(6,x)+scrollX)+'px';tip.style.top=(e.bottom+scrollY+4)+'px'}
function cell(ev){return ev.target.closest?ev.target.closest('td[data-tip]'):null}
d.addEventListener('mouseover',function(ev){var c=cell(ev);if(c)show(c)});
d.addEventListener('mouseout',function(ev){if(cell(ev))hide()});
d.addEventListener('focusin',function(ev){var c=cell(ev);if(c)show(c)});
d.addEventListener('click',function(ev){var c=cell(ev);if(c&&c!==shown)show(c);else hide()});
d.addEventListener('keydown',function(ev){if(ev.key==='Escape')hide()});
function val(td){var s=td.textContent.trim(),m=s.replace(/,/g,'').match(/^(-?[\d.]+)\s*([KM]?)/);return m?parseFloat(m[1])*(m[2]==='K'?1e3:m[2]==='M'?1e6:1):s}
function sort(th,i){var tb=th.closest('table').tBodies[0],rows=[].slice.call(tb.rows),up=th.getAttribute('aria-sort')!=='ascending';
[].forEach.call(th.parentNode.cells,function(h){h.removeAttribute('aria-sort')});th.setAttribute('aria-sort',up?'ascending':'descending');
rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);if(typeof x!==typeof y)return typeof x==='number'?-1:1;var c=x<y?-1:x>y?1:0;return up?c:-c});
rows.forEach(function(row){tb.appendChild(row)})}
[].forEach.call(d.querySelectorAll('table.sortable th'),function(th,i){th.tabIndex=0;var i2=th.cellIndex;
th.onclick=function(){sort(th,i2)};th.onkeydown=function(ev){if(ev.key==='Enter')sort(th,i2)}})})();`

// htmlStyle is report.html's style sheet, less the theme colours
// (htmlThemeCSS puts them in front).
const htmlStyle = `*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--border);padding-bottom:.2em}
h3{font-size:1.05em;margin:1em 0 .3em}
.sub,.muted{color:var(--muted)}.model{font-size:1.15em;font-weight:600;margin:0}
.banner{font-weight:700;font-size:1.1em;padding:12px 16px;margin:0 0 8px;border-radius:6px}
.banner-simulated{background:var(--simulated);color:var(--simulatedText)}
.banner-imported{background:var(--primary);color:var(--bg)}
.banner-partial{background:var(--looped);color:var(--loopedText)}
.banner-measured{background:var(--measured);color:var(--measuredText)}
.top{display:flex;justify-content:space-between;align-items:flex-start;gap:8px}
button{font:inherit;white-space:nowrap;background:var(--panel);color:var(--text);border:1px solid var(--border);border-radius:6px;padding:4px 10px;cursor:pointer}
.cols{display:flex;flex-wrap:wrap;gap:8px 32px}.cols section{flex:1 1 260px;min-width:0}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
pre{background:var(--code);border:1px solid var(--border);border-radius:6px;padding:10px;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.scroll{overflow-x:auto;max-width:100%;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid var(--grid);text-align:left;white-space:nowrap}
th{background:var(--panel);position:sticky;top:0}td.r,th.r{text-align:right}
table.sortable th{cursor:pointer}table.sortable th[aria-sort=ascending]::after{content:" \25B2"}table.sortable th[aria-sort=descending]::after{content:" \25BC"}
tbody tr:nth-child(even) td{background:var(--zebra)}
.st-Failed td,.st-Looped td{color:var(--muted)}
figure{margin:8px 0;overflow-x:auto}figure svg{max-width:100%;min-width:560px;height:auto}
.svg-dark{display:none}
table.heat{border-collapse:separate;border-spacing:3px}
table.heat td{text-align:center;border:0;border-radius:5px;min-width:76px;height:46px;padding:6px 6px;cursor:default;position:relative}
table.heat tbody tr:nth-child(even) td.hc{background:none}
table.heat td b{display:block;font-size:14px}table.heat td small{font-size:11px;opacity:.85}
table.heat th{background:none;text-align:center;border:0}table.heat th.row{text-align:right}
td.hc-Over{background:var(--over)!important;color:var(--overText)}
td.hc-Looped{background:repeating-linear-gradient(45deg,var(--looped) 0 5px,var(--loopedHatch) 5px 6.5px)!important;color:var(--loopedText)}
td.hc-Failed{background:repeating-linear-gradient(45deg,var(--failed) 0 4px,var(--failedHatch) 4px 5.5px)!important;color:var(--failedText)}
td.hc-Cancelled{background:var(--panel)!important;outline:1.2px dashed var(--axis);color:var(--pendingText)}
td.hc-Other{outline:1px solid var(--border);color:var(--pendingText)}
td.miss::after{content:"";position:absolute;top:0;right:0;border:7px solid transparent;border-top-color:#d1242f;border-right-color:#d1242f;border-top-right-radius:5px}
td[data-tip]:focus{outline:2px solid var(--primary)}
#tip{position:absolute;z-index:9;max-width:min(380px,92vw);background:var(--panel);color:var(--text);border:1px solid var(--border);border-radius:6px;padding:8px 10px;font-size:13px;white-space:pre-line;box-shadow:0 4px 14px rgba(0,0,0,.25)}
ul{padding-left:1.2em}li{overflow-wrap:anywhere}p{overflow-wrap:anywhere}
@page{size:auto;margin:15mm 12mm}
@media print{:root{color-scheme:light}body{background:#fff;color:#000}button,#tip{display:none!important}main{max-width:none;padding:0}
.svg-dark{display:none!important}.svg-light{display:inline!important}.scroll,figure{overflow:visible}figure svg{min-width:0}
tr,td,th,figure,.banner,dl{break-inside:avoid;page-break-inside:avoid}h2,h3{break-after:avoid;page-break-after:avoid}thead{display:table-header-group}th{position:static}
td.hc,.banner{-webkit-print-color-adjust:exact;print-color-adjust:exact}
table{font-size:10px}th,td{white-space:normal;padding:2px 4px}table.heat td{min-width:0;height:auto;padding:3px}table.heat td b{font-size:11px}}
@media (max-width:600px){main{padding:10px}h1{font-size:1.3em}}
`

// htmlThemeCSS are the light and dark colours of report.html as CSS
// variables, taken from the charts' own palettes (one home for colours):
// light by default, dark when the system prefers it unless the switch
// says light, and dark when the switch says so.
func htmlThemeCSS() string {
	light, dark := cssVars(paletteFor(Light)), cssVars(paletteFor(Dark))
	swap := ".svg-light{display:none}.svg-dark{display:inline}"
	return ":root{color-scheme:light;" + light + "}\n" +
		"@media screen and (prefers-color-scheme:dark){:root:not([data-theme=light]){color-scheme:dark;" + dark + "}" +
		":root:not([data-theme=light]) " + strings.ReplaceAll(swap, "}.", "}:root:not([data-theme=light]) .") + "}\n" +
		"@media screen{:root[data-theme=dark]{color-scheme:dark;" + dark + "}" +
		":root[data-theme=dark] " + strings.ReplaceAll(swap, "}.", "}:root[data-theme=dark] .") + "}\n"
}

// cssVars writes a palette's roles as CSS custom properties.
func cssVars(p palette) string {
	var b strings.Builder
	for _, v := range []struct {
		name string
		c    color.NRGBA
	}{{"bg", p.bg}, {"panel", p.panel}, {"code", p.code}, {"text", p.text}, {"muted", p.muted}, {"grid", p.grid},
		{"axis", p.axis}, {"border", p.border}, {"zebra", p.zebra}, {"primary", p.primary},
		{"over", p.over}, {"overText", p.overText}, {"looped", p.looped}, {"loopedHatch", p.loopedHatch},
		{"loopedText", p.loopedText}, {"failed", p.failed}, {"failedHatch", p.failedHatch}, {"failedText", p.failedText},
		{"pendingText", p.pendingText}, {"measured", p.measured}, {"measuredText", p.measuredText},
		{"simulated", p.simulated}, {"simulatedText", p.simulatedText}} {
		fmt.Fprintf(&b, "--%s:%s;", v.name, svgColor(v.c))
	}
	return b.String()
}
