#!/usr/bin/env bash
# A stand-in for a coding agent: it reads its prompt on stdin and edits calc.txt.
# A "quick patch" gets the fix wrong; "write a test first" gets it right.
# It keeps the prompt it got (with interlock's task envelope) in .prompt-<node>-<attempt>.txt. Given Claude Code's
# --output-format (a node with `engine: claude-code`), it prints what Claude Code prints instead: stream-json lines
# with a session of its own, and writes notes.md.
prompt=$(cat)
attempt=${INTERLOCK_ATTEMPT:-1}
printf '%s\n' "$prompt" > ".prompt-${INTERLOCK_NODE:-agent}-$attempt.txt"
case " $* " in *" --output-format "*)
  s="demo-session-${INTERLOCK_NODE:-agent}-$attempt"
  echo "- ${INTERLOCK_NODE:-agent}" >> notes.md
  printf '{"type":"system","subtype":"init","session_id":"%s"}\n' "$s"
  printf '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"%s: done.","session_id":"%s","total_cost_usd":0.001,"usage":{"input_tokens":120,"output_tokens":12}}\n' "${INTERLOCK_NODE:-agent}" "$s"
  exit 0 ;;
esac
if grep -q "Write a test first" <<<"$prompt"; then
  echo "agent (attempt $attempt): writing a test, then fixing add()"
  echo "add(2, 2) = 4" > calc.txt
else
  echo "agent (attempt $attempt): quick patch to add()"
  echo "add(2, 2) = 5" > calc.txt
fi
echo "agent: done (claims success)"
