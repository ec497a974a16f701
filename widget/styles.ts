/** The widget's CSS, inside its shadow root so the host page's styles and ours never mix. */

export const css = `
:host { all: initial; }
* { box-sizing: border-box; }
.root {
  position: fixed; right: 20px; bottom: 20px; z-index: 2147483000;
  font: 14px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  color: #111827;
}
.bubble {
  width: 58px; height: 58px; border-radius: 50%; border: 0; cursor: pointer;
  background: var(--primary); color: var(--on-primary);
  box-shadow: 0 6px 20px rgba(0,0,0,.22); display: flex; align-items: center; justify-content: center;
  position: relative; transition: transform .15s ease; margin-left: auto;
}
.bubble:hover { transform: scale(1.06); }
.bubble:focus-visible, .send:focus-visible, .close:focus-visible { outline: 3px solid rgba(59,130,246,.6); outline-offset: 2px; }
.bubble svg { width: 28px; height: 28px; }
.unread {
  position: absolute; top: -4px; right: -4px; min-width: 20px; height: 20px; padding: 0 6px;
  border-radius: 10px; background: #ef4444; color: #fff; font-size: 12px; font-weight: 600;
  display: flex; align-items: center; justify-content: center;
}
.panel {
  position: absolute; right: 0; bottom: 74px; width: 370px; height: 560px; max-height: calc(100vh - 110px);
  background: #fff; border-radius: 16px; overflow: hidden; display: flex; flex-direction: column;
  box-shadow: 0 12px 48px rgba(0,0,0,.22);
}
.panel[hidden], .unread[hidden], .status[hidden], .logo[hidden], .hours[hidden], .typing[hidden] { display: none; }
.header { background: var(--primary); color: var(--on-primary); padding: 18px 18px 16px; position: relative; }
.brand { display: flex; align-items: center; gap: 10px; padding-right: 28px; }
.logo { width: 36px; height: 36px; border-radius: 50%; object-fit: cover; background: rgba(255,255,255,.25); flex: none; }
.heading { font-size: 18px; font-weight: 700; margin: 0; }
.tagline { margin: 6px 0 0; font-size: 13px; }
.hours { margin: 8px 0 0; font-size: 12px; font-weight: 600; }
.status { margin-top: 10px; font-size: 12px; display: flex; align-items: center; gap: 6px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #9ca3af; box-shadow: 0 0 0 2px rgba(255,255,255,.6); }
.dot.online { background: #22c55e; }
.close {
  position: absolute; top: 12px; right: 12px; width: 30px; height: 30px; border: 0; border-radius: 8px;
  background: transparent; color: inherit; cursor: pointer; font-size: 22px; line-height: 1;
}
.close:hover { background: rgba(255,255,255,.15); }
.messages { flex: 1; overflow-y: auto; padding: 16px 14px; background: #f9fafb; display: flex; flex-direction: column; gap: 8px; }
.empty { margin: auto; text-align: center; color: #6b7280; font-size: 13px; padding: 0 24px; }
.msg { max-width: 80%; padding: 9px 12px; border-radius: 14px; white-space: pre-wrap; word-wrap: break-word; overflow-wrap: anywhere; }
.msg.customer { align-self: flex-end; background: var(--primary); color: var(--on-primary); border-bottom-right-radius: 4px; }
.msg.agent, .msg.ai, .msg.system { align-self: flex-start; background: #fff; border: 1px solid #e5e7eb; border-bottom-left-radius: 4px; }
.msg.system { font-style: italic; color: #4b5563; }
.msg.pending { opacity: .6; }
.msg .csat { display: flex; gap: 6px; margin-top: 8px; font-style: normal; flex-wrap: wrap; }
.msg .csat-option { min-width: 36px; height: 36px; border-radius: 8px; border: 1px solid #d1d5db; background: #fff; color: #111827; font: inherit; font-weight: 600; cursor: pointer; }
.msg .csat-option:hover, .msg .csat-option:focus-visible { border-color: var(--primary); outline: 2px solid var(--primary); outline-offset: 1px; }
.msg .csat-option:disabled { opacity: .5; cursor: default; }
.msg .csat-done { color: #065f46; font-style: normal; }
.msg.failed { background: #fee2e2; color: #991b1b; cursor: pointer; }
.msg .text { display: block; }
.who { display: block; font-size: 11px; color: #6b7280; margin-bottom: 2px; }
.note { display: block; font-size: 11px; margin-top: 4px; }
.files a { display: block; color: inherit; text-decoration: underline; font-size: 13px; margin-top: 4px; }
.typing { display: flex; align-items: center; gap: 8px; padding: 6px 16px 8px; background: #f9fafb; color: #6b7280; font-size: 13px; }
.dots { display: inline-flex; gap: 3px; }
.dots i { width: 5px; height: 5px; border-radius: 50%; background: #9ca3af; animation: parley-typing 1.2s infinite ease-in-out; }
.dots i:nth-child(2) { animation-delay: .15s; }
.dots i:nth-child(3) { animation-delay: .3s; }
@keyframes parley-typing { 0%, 60%, 100% { opacity: .35; transform: translateY(0); } 30% { opacity: 1; transform: translateY(-2px); } }
@media (prefers-reduced-motion: reduce) { .dots i { animation: none; } }
.files .picture { display: block; max-width: 200px; max-height: 200px; border-radius: 8px; margin-top: 6px; }
.attach { border: 0; background: transparent; color: #6b7280; height: 40px; width: 32px; cursor: pointer; padding: 0; display: flex; align-items: center; justify-content: center; }
.attach:hover { color: #111827; }
.composer { display: flex; gap: 8px; padding: 10px; border-top: 1px solid #e5e7eb; background: #fff; align-items: flex-end; }
.input {
  flex: 1; resize: none; border: 1px solid #d1d5db; border-radius: 10px; padding: 9px 11px; max-height: 120px;
  font: inherit; color: inherit; background: #fff; min-height: 40px;
}
.input:focus { outline: none; border-color: var(--primary); box-shadow: 0 0 0 3px rgba(0,0,0,.06); }
.send {
  border: 0; border-radius: 10px; height: 40px; padding: 0 14px; cursor: pointer; font: inherit; font-weight: 600;
  background: var(--primary); color: var(--on-primary);
}
.send:disabled { opacity: .5; cursor: default; }
@media (max-width: 480px) {
  .root { right: 12px; bottom: 12px; }
  .panel { position: fixed; inset: 0; width: auto; height: auto; max-height: none; border-radius: 0; }
  /* The panel covers the page; its own close button replaces the bubble. */
  .root.open .bubble { display: none; }
  /* Below 16px, phones zoom the page in when the field gets focus. */
  .input { font-size: 16px; }
}
`;
