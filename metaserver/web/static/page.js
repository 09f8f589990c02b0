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

async function show() {
  clearTimeout(refreshTimer);
  const wanted = view();
  const html = await request("/ui" + wanted);
  if (html === null || wanted !== view()) return;
  document.getElementById("signin").hidden = true;
  document.getElementById("nav").hidden = false;
  const main = document.getElementById("main");
  main.innerHTML = html;
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
  document.getElementById("main").innerHTML = html;
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
