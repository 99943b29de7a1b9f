-- record.lua - records the didChange notifications Neovim's LSP client sends while text is typed
-- into big.py (what bench/lsp/edits.json holds). The server command is wrapped in `tee` so the
-- client's messages land in $TL_LOG; bench/lsp/run.sh --record turns them into edits.json.
-- Environment: TL_BIN (trainlint), TL_FILE (big.py), TL_ANCHOR (0-based anchor line), TL_LOG.
local path, L = os.getenv("TL_FILE"), tonumber(os.getenv("TL_ANCHOR"))
vim.cmd("edit " .. vim.fn.fnameescape(path))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = "record",
  cmd = { "sh", "-c", 'tee "$TL_LOG" | "$TL_BIN" server' },
  root_dir = vim.fn.fnamemodify(path, ":h"),
  flags = { debounce_text_changes = 0 }, -- one didChange per keystroke
})
vim.lsp.buf_attach_client(buf, id)
vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
local function pause() vim.wait(20, function() return false end, 5) end
local function chars(s)
  local t = {}
  for c in s:gmatch("[%z\1-\127\194-\244][\128-\191]*") do table.insert(t, c) end
  return t
end
-- Enter at the end of the anchor line: a new, indented line
vim.api.nvim_buf_set_lines(buf, L + 1, L + 1, false, { "            " })
pause()
local typed, col = chars("grad_norm = loss.item()  # größe 🚀"), 12
for _, c in ipairs(typed) do
  vim.api.nvim_buf_set_text(buf, L + 1, col, L + 1, col, { c })
  col = col + #c
  pause()
end
for i = #typed, 1, -1 do -- backspace
  vim.api.nvim_buf_set_text(buf, L + 1, col - #typed[i], L + 1, col, { "" })
  col = col - #typed[i]
  pause()
end
vim.api.nvim_buf_set_lines(buf, L + 1, L + 2, false, {})
pause()
-- `if step % 100 == 0:` three lines below the anchor: delete a `0`, type it again
local l3 = vim.api.nvim_buf_get_lines(buf, L + 3, L + 4, false)[1]
local p = l3:find("100", 1, true) + 1
vim.api.nvim_buf_set_text(buf, L + 3, p, L + 3, p + 1, { "" })
pause()
vim.api.nvim_buf_set_text(buf, L + 3, p, L + 3, p, { "0" })
vim.wait(300, function() return false end, 20)
vim.cmd("qa!")
