-- test.lua - drives Neovim's built-in LSP client (0.7+) against `trainlint server` on a copy of
-- tests/lsp/project: diagnostics, UTF-16 columns, edits as the user types, a cross-file change,
-- and code actions applied through the client. Results go to $TL_OUT, one line each
-- ("ok ..." or "FAIL ..."), then "DONE".
-- Environment: TL_BIN (the trainlint binary), TL_ROOT (the project copy), TL_OUT.
local bin, root, out = os.getenv("TL_BIN"), os.getenv("TL_ROOT"), os.getenv("TL_OUT")
local lines = {}
local failed = false
local TIMEOUT = 20000

local function report(ok, what)
  table.insert(lines, (ok and "ok   " or "FAIL ") .. what)
  if not ok then failed = true end
end

local function finish()
  table.insert(lines, "DONE")
  vim.fn.writefile(lines, out)
  vim.cmd("qa!")
end

local function diags(buf)
  local d = vim.diagnostic.get(buf)
  table.sort(d, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  return d
end

local function describe(buf)
  local parts = {}
  for _, d in ipairs(diags(buf)) do
    table.insert(parts, string.format("%s@%d:%d-%d:%d", tostring(d.code), d.lnum, d.col, d.end_lnum, d.end_col))
  end
  return "[" .. table.concat(parts, ", ") .. "]"
end

-- waits until the buffer's diagnostics, described, equal `want`
local function expect(buf, want, what)
  local ok = vim.wait(TIMEOUT, function() return describe(buf) == want end, 20)
  report(ok, what .. ": " .. describe(buf) .. (ok and "" or (" (want " .. want .. ")")))
  return ok
end

local client_id = vim.lsp.start_client({
  name = "trainlint",
  cmd = { bin, "server" },
  root_dir = root,
  init_options = { select = { "TL101", "TL201", "TL206" } },
})
if not client_id then
  report(false, "start_client")
  return finish()
end

local function open(rel)
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. rel))
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_option(buf, "filetype", "python")
  vim.lsp.buf_attach_client(buf, client_id)
  return buf
end

-- applies the code action titled `title` (a Lua pattern) offered at the first diagnostic of buf
local function apply_action(buf, title)
  local d = diags(buf)[1]
  if not d then
    report(false, "code action '" .. title .. "': no diagnostic")
    return false
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local lsp_diags = vim.lsp.diagnostic.get_line_diagnostics(buf, d.lnum)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = 0 }, ["end"] = { line = d.lnum, character = 0 } },
    context = { diagnostics = lsp_diags },
  }
  local res = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, TIMEOUT)
  local actions = res and res[client_id] and res[client_id].result or {}
  for _, a in ipairs(actions) do
    if a.title:match(title) and a.edit then
      vim.lsp.util.apply_workspace_edit(a.edit, client.offset_encoding)
      report(true, "code action applied: " .. a.title)
      return true
    end
  end
  local titles = {}
  for _, a in ipairs(actions) do table.insert(titles, a.title) end
  report(false, "code action '" .. title .. "' not offered (got: " .. table.concat(titles, " | ") .. ")")
  return false
end

-- 1. diagnostics of a file made hot by another file, and their UTF-16 -> byte columns
local helpers = open("helpers.py")
expect(helpers, "[TL101@4:18-4:29]", "helpers.py diagnostics")
local uni = open("unicode.py")
-- line 6: `        grüße = "𝔘𝔫𝔦"; wert = x.sum().item(); return wert`: UTF-16 33 is byte 41
expect(uni, "[TL101@6:41-6:55]", "unicode.py diagnostics (byte columns from UTF-16)")

-- 2. typing: an astral character inserted in the string (4 bytes, 2 UTF-16 units), then removed
vim.api.nvim_buf_set_text(uni, 6, 31, 6, 31, { "🚀" })
expect(uni, "[TL101@6:45-6:59]", "unicode.py after inserting an astral character")
vim.api.nvim_buf_set_text(uni, 6, 31, 6, 35, { "" })
expect(uni, "[TL101@6:41-6:55]", "unicode.py after removing it")

-- 3. the hot chain crosses files: train.py's step loop stops calling log_stats (unsaved)
local train = open("train.py")
expect(train, "[TL201@11:48-11:61]", "train.py diagnostics")
vim.api.nvim_buf_set_lines(train, 17, 18, false, { "            pass" })
expect(helpers, "[]", "helpers.py once train.py (unsaved) no longer calls log_stats")
vim.api.nvim_buf_set_lines(train, 17, 18, false, { "            log_stats(loss)" })
expect(helpers, "[TL101@4:18-4:29]", "helpers.py once the call is back")

-- 4. code actions through the client: the rule's fix, and a suppression comment
local model = open("model.py")
expect(model, "[TL206@11:14-11:51]", "model.py diagnostics")
if apply_action(model, "^Create the tensor on the device") then
  expect(model, "[]", "model.py after the fix")
  vim.api.nvim_buf_call(model, function() vim.cmd("write") end)
end
if apply_action(helpers, "^Suppress TL101 on this line") then
  expect(helpers, "[]", "helpers.py after the suppression")
  vim.api.nvim_buf_call(helpers, function() vim.cmd("write") end)
end

-- 5. shutdown
vim.lsp.stop_client(client_id)
local stopped = vim.wait(TIMEOUT, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
report(stopped, "client stopped")
finish()
