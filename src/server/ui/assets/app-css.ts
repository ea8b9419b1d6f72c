/** The dashboard's own style sheet: small, no framework; readable on a phone. */
export const APP_CSS = `
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#d9dee5; --bg:#f6f7f9; --card:#fff;
  --accent:#1f5fbf; --ok:#1a7f37; --warn:#9a6700; --bad:#c62828; font-family: system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin:0; color:var(--fg); background:var(--bg); font-size:15px; line-height:1.45; }
a { color:var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible
  { outline:3px solid #f5a623; outline-offset:2px; }
header.top { display:flex; flex-wrap:wrap; gap:.5rem 1rem; align-items:center; padding:.6rem 1rem;
  background:#14213d; color:#fff; }
header.top a { color:#fff; text-decoration:none; padding:.25rem .4rem; border-radius:4px; }
header.top a[aria-current=page] { background:rgba(255,255,255,.18); }
header.top .brand { font-weight:700; margin-right:.5rem; }
header.top nav { display:flex; flex-wrap:wrap; gap:.25rem; flex:1; }
header.top form { margin:0; }
.skip { position:absolute; left:-999px; }
.skip:focus { left:.5rem; top:.5rem; background:#fff; color:#000; padding:.3rem; z-index:9; }
main { padding:1rem; max-width:1200px; margin:0 auto; }
h1 { font-size:1.35rem; margin:.2rem 0 1rem; }
h2 { font-size:1.1rem; margin:1.2rem 0 .5rem; }
/* Run ids (up to ~50 characters, no spaces) in titles and facts wrap instead of widening a phone's page. */
h1, h2, dd, .flash { overflow-wrap:anywhere; }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:.8rem;
  margin-bottom:1rem; }
.table-wrap { overflow-x:auto; }
table { border-collapse:collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:.4rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:.85rem; color:var(--muted); font-weight:600; }
td.error-cell { overflow-wrap:anywhere; min-width:12rem; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
td.when { white-space:nowrap; }
.stats { display:flex; flex-wrap:wrap; gap:.6rem; margin:0 0 1rem; padding:0; list-style:none; }
.stats li { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:.5rem .8rem;
  min-width:7.5rem; }
.stats .label { display:block; font-size:.8rem; color:var(--muted); }
.stats .value { font-size:1.25rem; font-weight:600; }
.tone-ok, .status-succeeded, .status-PASS { color:var(--ok); }
.tone-warn, .status-skipped, .status-running, .status-queued { color:var(--warn); }
.tone-bad, .status-failed, .status-abandoned, .status-dead, .status-FAIL { color:var(--bad); }
.tone-muted { color:var(--muted); }
.badge { font-weight:600; }
button, .button { font:inherit; padding:.3rem .7rem; border-radius:4px; border:1px solid var(--accent);
  background:var(--accent); color:#fff; cursor:pointer; text-decoration:none; display:inline-block; }
button.secondary, .button.secondary { background:#fff; color:var(--accent); }
button.danger { background:var(--bad); border-color:var(--bad); }
.actions { display:flex; flex-wrap:wrap; gap:.3rem; }
.actions form { margin:0; }
form.filters { display:flex; flex-wrap:wrap; gap:.6rem; align-items:end; margin-bottom:1rem; }
label { display:flex; flex-direction:column; font-size:.85rem; color:var(--muted); gap:.2rem; }
input, select { font:inherit; padding:.3rem .4rem; border:1px solid var(--line); border-radius:4px; }
pre.error { white-space:pre-wrap; overflow-wrap:anywhere; }
pre { background:#0f172a; color:#e2e8f0; padding:.7rem; border-radius:6px; overflow:auto; font-size:.85rem; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.3rem 1rem; margin:0; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; word-break:break-word; }
.flash { padding:.6rem .8rem; border-radius:6px; background:#e7f3ea; border:1px solid #b7dcc0; margin-bottom:1rem; }
.flash.error { background:#fdecea; border-color:#f5c2c0; }
.signin { max-width:24rem; margin:3rem auto; }
.signin form { display:flex; flex-direction:column; gap:.8rem; }
.chart { min-height:240px; }
details > summary { cursor:pointer; color:var(--accent); margin:.3rem 0; }
.chart .u-legend { font-size:.8rem; }
.panel-img { width:40px; height:40px; object-fit:cover; vertical-align:middle; margin-right:.4rem; border-radius:3px; }
.img-missing { display:inline-block; background:repeating-linear-gradient(45deg,#e3e7ec 0 6px,#f1f3f6 6px 12px);
  border:1px solid var(--line); }
/* A chart's legend shows values only while the pointer is over it: no "--" placeholders. */
.chart:not(:hover) .u-legend .u-value, .chart:not(:hover) .u-legend .u-series:first-child { display:none; }
.chart:not(:hover) .u-legend.u-live th::after { content:""; }
.pager { display:flex; gap:.6rem; margin-top:.8rem; }
.sub { display:block; font-size:.8rem; color:var(--muted); font-weight:400; }
th .sub { margin-top:.1rem; }
ul.plain { margin:0; padding-left:1.1rem; }
.strip { display:flex; gap:2px; align-items:center; min-height:18px; }
.strip .cell { display:inline-block; width:10px; height:18px; border-radius:2px; background:#c9d1db; flex:none; }
.strip .cell.empty { background:#edf0f3; }
p.note { margin:.2rem 0 .5rem; font-size:.85rem; }
.strip a.cell:hover, .strip a.cell:focus-visible { outline:2px solid var(--fg); outline-offset:1px; }
.cell-succeeded { background:var(--ok) !important; }
.cell-failed, .cell-abandoned { background:var(--bad) !important; }
.cell-running { background:#e0a100 !important; }
.cell-skipped { background:#aab4c0 !important; }
.banner { background:#fdecea; border:1px solid #f5c2c0; border-left:6px solid var(--bad); border-radius:6px;
  padding:.6rem .8rem; margin-bottom:1rem; }
.banner ul { margin:.3rem 0 0; padding-left:1.1rem; }
.banner a { color:#8a1c1c; }
.children-failing { margin-left:.3rem; }
.overview-top { display:flex; flex-wrap:wrap; gap:0 1.5rem; }
.overview-top h2 { margin-top:.2rem; font-size:1rem; }
.overview-top .stats li { min-width:6rem; padding:.35rem .6rem; }
.overview-top .stats a { text-decoration:none; color:inherit; display:block; }
table.kv > tbody > tr > th { width:14rem; }
table.nested { margin:0; font-size:.9rem; }
table.nested th, table.nested td { padding:.2rem .4rem; }
.charts { display:grid; grid-template-columns:repeat(auto-fit, minmax(min(100%, 480px), 1fr)); gap:0 1rem; }
section.queue h2 { margin-top:0; }
.menu-toggle { display:none; }
.tz { font-size:.8rem; opacity:.8; margin-left:auto; }
@media (max-width: 640px) {
  main { padding:.6rem; }
  th, td { padding:.35rem .3rem; font-size:.9rem; }
  .hide-narrow { display:none; }
  .js .menu-toggle { display:inline-block; margin-left:auto; background:transparent; border-color:#fff; }
  .js header.top nav, .js header.top .signout { display:none; }
  .js header.top.open nav { display:flex; flex-direction:column; flex:1 0 100%; order:3; }
  .js header.top.open .signout { display:block; order:4; }
  .tz { display:none; }
  table.kv > tbody > tr > th { width:auto; }
  /* Wide tables become one card per row, so every row's buttons stay on screen. */
  table.stack-narrow thead { display:none; }
  table.stack-narrow, table.stack-narrow tbody, table.stack-narrow tr, table.stack-narrow th,
  table.stack-narrow td { display:block; width:100%; }
  table.stack-narrow tr { border-bottom:2px solid var(--line); padding:.3rem 0; }
  table.stack-narrow th, table.stack-narrow td { border:0; padding:.15rem .3rem; }
  table.stack-narrow td.hide-narrow { display:none; }
  table.stack-narrow td[data-label] { display:flex; gap:.5rem; text-align:left; overflow-wrap:anywhere; }
  table.stack-narrow td[data-label]::before { content:attr(data-label); color:var(--muted);
    font-size:.8rem; min-width:6.5rem; flex:none; }
  .strip .cell { width:8px; }
  .overview-top { display:block; }
  .overview-top .stats { gap:.3rem; flex-wrap:nowrap; }
  .overview-top .stats li { min-width:0; flex:1 1 0; padding:.25rem .35rem; }
  .overview-top .stats .label { font-size:.68rem; }
  .overview-top .stats .value { font-size:1.05rem; }
}
`;
