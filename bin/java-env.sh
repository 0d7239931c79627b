# Sourced by the project's scripts: selects a JDK 25 for Maven and for the programs it builds.
# The machine's default java may be older (17); JDK 25 is looked for in JAVA_HOME, then under /usr/lib/jvm.
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

if [ -z "${JAVA_HOME:-}" ] || [ "$(java_major "$JAVA_HOME" 2>/dev/null)" != "25" ]; then
  JAVA_HOME=""
  for candidate in /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate")" = "25" ]; then
      JAVA_HOME="$candidate"
      break
    fi
  done
  if [ -z "$JAVA_HOME" ]; then
    echo "error: no JDK 25 found (set JAVA_HOME, or install one under /usr/lib/jvm)" >&2
    exit 1
  fi
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
