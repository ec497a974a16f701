/**
 * A readable, self-contained docs page at /docs: it loads /api/v1/openapi.json and lists every
 * endpoint by tag with its parameters, body and responses. No CDN, so it works offline. Every
 * `docs/decisions.md#<heading>` a description names links to that topic of /docs/decisions.
 * Its one script and one stylesheet are allowed by their hashes (docsContentSecurityPolicy);
 * nothing else may run or load, and the script may fetch only from this origin.
 */
import { inlinePagePolicy } from './inline-page-policy.ts';

const style = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d2b;background:#fafaff}
header{background:#7650FF;color:#fff;padding:16px 32px}main{max-width:1000px;margin:0 auto;padding:16px 32px}
h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
details{background:#fff;border:1px solid #e3e3ee;border-radius:6px;margin:8px 0;padding:8px 12px}
summary{cursor:pointer;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7d32}.post{color:#7650FF}.put,.patch{color:#b36b00}.delete{color:#c62828}
pre{background:#f4f4fa;padding:8px;overflow:auto;font-size:13px}
.lock{color:#666;font:12px system-ui,sans-serif;border:1px solid #ccc;border-radius:4px;padding:0 4px}
pre.desc{background:transparent;color:#fff;white-space:pre-wrap}
header a{color:#fff}
`;

const script = `fetch('/api/v1/openapi.json').then(r=>r.json()).then(doc=>{
  const esc=s=>String(s).replace(/[&<>]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));
  // Applied to escaped text: an anchor is [a-z0-9-] only, so nothing else becomes markup.
  const links=s=>s.replace(/docs\\/decisions\\.md(#[a-z0-9-]+)?/g,(m,h)=>'<a href="/docs/decisions'+(h||'')+'">'+m+'</a>');
  const schemas=(doc.components&&doc.components.schemas)||{};
  // Shared schemas are $refs in the document: show them inline (once per branch, so cycles end).
  const inline=(v,seen=[])=>{
    if(Array.isArray(v)) return v.map(x=>inline(x,seen));
    if(!v||typeof v!=='object') return v;
    if(typeof v.$ref==='string'){const name=v.$ref.split('/').pop();return seen.includes(name)?{$ref:name}:inline(schemas[name],[...seen,name]);}
    return Object.fromEntries(Object.entries(v).map(([k,x])=>[k,inline(x,seen)]));
  };
  const show=v=>JSON.stringify(inline(v),null,2);
  document.getElementById('desc').innerHTML='<pre class="desc">'+links(esc(doc.info.description||''))+'</pre>';
  const byTag={};
  for(const [path,ops] of Object.entries(doc.paths)) for(const [method,op] of Object.entries(ops)){
    const tag=(op.tags&&op.tags[0])||'Other';(byTag[tag]=byTag[tag]||[]).push({path,method,op});}
  let html='';
  for(const [tag,list] of Object.entries(byTag)){
    html+='<h2>'+esc(tag)+'</h2>';
    for(const {path,method,op} of list){
      html+='<details><summary><span class="m '+method+'">'+method+'</span> '+esc(path)+' — '+esc(op.summary||'')+(op.security&&op.security.length?' <span class="lock" title="Needs an access token">token</span>':'')+'</summary>';
      if(op.description) html+='<p>'+links(esc(op.description))+'</p>';
      if(op.parameters&&op.parameters.length) html+='<h4>Parameters</h4><pre>'+esc(op.parameters.map(p=>p.in+' '+p.name+(p.required?' (required)':'')+': '+JSON.stringify(inline(p.schema))).join('\\n'))+'</pre>';
      const body=op.requestBody&&op.requestBody.content&&Object.values(op.requestBody.content)[0];
      if(body) html+='<h4>Body</h4><pre>'+esc(show(body.schema))+'</pre>';
      html+='<h4>Responses</h4><pre>'+esc(Object.entries(op.responses).map(([s,r])=>s+' '+r.description+(r.content?'\\n'+show(Object.values(r.content)[0].schema):'')).join('\\n\\n'))+'</pre></details>';
    }
  }
  document.getElementById('main').innerHTML=html;
}).catch(e=>{document.getElementById('main').textContent='Could not load the OpenAPI document: '+e});
`;

export const docsContentSecurityPolicy = inlinePagePolicy({ style, script, fetchesOwnOrigin: true });

export const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parley API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>${style}</style></head><body><header><h1>Parley API</h1><div id="desc"></div></header><main id="main">Loading…</main>
<script>${script}</script></body></html>`;
