// The registry page: fetches server-rendered fragments with the bearer token and puts them
// in place. The token lives in sessionStorage, never in an address.
"use strict";

const KEY = "metaserver-token";
let refreshTimer = null;

function headers(extra) {
  const token = sessionStorage.getItem(KEY);
  const all = Object.assign({}, extra || {});
  if (token) all["Authorization"] = "Bearer " + token;
  return all;
}

async function request(path, options) {
  const opts = Object.assign({}, options || {});
  opts.headers = headers(opts.headers);
  const answer = await fetch(path, opts);
  if (answer.status === 401) {
    signedOut(Boolean(sessionStorage.getItem(KEY)));
    return null;
  }
  return answer.text();
}

function signedOut(refused) {
  sessionStorage.removeItem(KEY);
  document.getElementById("main").innerHTML = "";
  document.getElementById("nav").hidden = true;
  document.getElementById("signin").hidden = false;
  document.getElementById("signin-error").hidden = !refused;
}

function view() {
  const hash = location.hash.replace(/^#/, "");
  return hash && hash !== "/" ? hash : "/servers";
}

// A live view is reloaded each second while a conversion runs. Putting the new fragment in
// by innerHTML would replace every element: a click whose press and release straddle a
// reload reaches no button (the Cancel pressed is gone), and text typed into the start form
// is wiped. So the new fragment is laid over the old one: nodes of the same kind in the same
// place are kept, with their attributes and text brought up to date.
function morph(old, fresh) {
  if (old.nodeType !== fresh.nodeType || old.nodeName !== fresh.nodeName) {
    old.replaceWith(fresh);
    return;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  for (const name of old.getAttributeNames()) {
    if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) {
    const value = fresh.getAttribute(name);
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  put(old, fresh.childNodes);
}

function put(parent, nodes) {
  const fresh = Array.from(nodes);
  const old = Array.from(parent.childNodes);
  fresh.forEach((node, index) => {
    if (index < old.length) morph(old[index], node);
    else parent.appendChild(node);
  });
  old.slice(fresh.length).forEach((node) => node.remove());
}

function render(main, html) {
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  put(main, fresh.content.childNodes);
}

async function show() {
  clearTimeout(refreshTimer);
  const wanted = view();
  const html = await request("/ui" + wanted);
  if (html === null || wanted !== view()) return;
  document.getElementById("signin").hidden = true;
  document.getElementById("nav").hidden = false;
  const main = document.getElementById("main");
  render(main, html);
  const live = main.querySelector("[data-refresh]");
  if (live) refreshTimer = setTimeout(show, Number(live.dataset.refresh) || 1000);
}

function argumentsOf(form) {
  const args = {};
  for (const field of form.querySelectorAll("[data-type]")) {
    const text = field.value.trim();
    if (text === "") continue;
    const kind = field.dataset.type;
    if (kind === "string") args[field.name] = field.value;
    else if (kind === "integer") args[field.name] = parseInt(text, 10);
    else if (kind === "number") args[field.name] = Number(text);
    else if (kind === "boolean") args[field.name] = text === "true";
    else args[field.name] = JSON.parse(text);
  }
  return args;
}

async function callTool(form) {
  const out = form.parentElement.querySelector(".result");
  let args;
  try {
    args = argumentsOf(form);
  } catch (error) {
    out.innerHTML = "";
    out.textContent = "Not JSON: " + error.message;
    return;
  }
  out.textContent = "Calling...";
  const body = JSON.stringify({
    server: form.dataset.server, version: form.dataset.version,
    tool: form.dataset.tool, arguments: args,
  });
  const html = await request("/ui/call", {
    method: "POST", body: body, headers: {"Content-Type": "application/json"},
  });
  if (html !== null) out.innerHTML = html;
}

async function post(path, payload) {
  const html = await request(path, {
    method: "POST", body: JSON.stringify(payload || {}),
    headers: {"Content-Type": "application/json"},
  });
  if (html === null) return;
  render(document.getElementById("main"), html);
  const live = document.querySelector("[data-refresh]");
  clearTimeout(refreshTimer);
  if (live) refreshTimer = setTimeout(show, Number(live.dataset.refresh) || 1000);
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  event.preventDefault();
  if (form.id === "signin-form") {
    sessionStorage.setItem(KEY, form.elements.token.value.trim());
    form.reset();
    show();
  } else if (form.id === "search") {
    location.hash = "#/search?q=" + encodeURIComponent(form.elements.q.value);
  } else if (form.classList.contains("try")) {
    callTool(form);
  } else if (form.classList.contains("convert")) {
    if (location.hash !== "#/conversions") history.replaceState(null, "", "#/conversions");
    post("/ui/conversions", {source: form.elements.source.value, ref: form.elements.ref.value});
  }
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  if (button.id === "signout") {
    signedOut(false);
  } else if (button.classList.contains("cancel")) {
    button.disabled = true;
    post("/ui/conversions/" + encodeURIComponent(button.dataset.job) + "/cancel");
  }
});

window.addEventListener("hashchange", show);
document.addEventListener("DOMContentLoaded", show);
