#!/usr/bin/env bash
# A stand-in for a coding agent: it reads its prompt on stdin and edits calc.txt.
# A "quick patch" gets the fix wrong; "write a test first" gets it right.
prompt=$(cat)
attempt=${INTERLOCK_ATTEMPT:-1}
if grep -q "Write a test first" <<<"$prompt"; then
  echo "agent (attempt $attempt): writing a test, then fixing add()"
  echo "add(2, 2) = 4" > calc.txt
else
  echo "agent (attempt $attempt): quick patch to add()"
  echo "add(2, 2) = 5" > calc.txt
fi
echo "agent: done (claims success)"
