#!/usr/bin/env bash
# Host side, before a boot: builds the project (tests compiled, not run) and writes what the guest's plans run
# from: $W/java/test.classpath (verbs and tools test classpaths), the JUnit console launcher and the daemon's
# class-data-sharing archive (daemon-archive.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="$1"
cd "$repo"
. bin/java-env.sh
mkdir -p "$W/java"
mvn -q -B -ntp -pl verbs,tools,target,initiator,deploy -am package dependency:build-classpath -DskipTests -Dmdep.includeScope=test \
  -Dmdep.outputFile=build/test.classpath >&2
{ echo -n "$repo/verbs/build/test-classes:$repo/verbs/build/classes:$repo/tools/build/test-classes:$repo/tools/build/classes:";
  cat verbs/build/test.classpath; echo -n ":"; cat tools/build/test.classpath; } > "$W/java/test.classpath"
# the target's end-to-end suite (plans/target-native.sh) runs from its own classpath
{ echo -n "$repo/target/build/test-classes:$repo/target/build/classes:"; cat target/build/test.classpath; } \
  > "$W/java/target-test.classpath"
# the initiator library's suite against our target (plans/initiator-native.sh)
{ echo -n "$repo/initiator/build/test-classes:$repo/initiator/build/classes:"; cat initiator/build/test.classpath; } \
  > "$W/java/initiator-test.classpath"
if [ ! -f "$W/java/junit-console.jar" ]; then
  mvn -q -B -ntp dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:6.1.3 \
    -DoutputDirectory="$W/java" >&2
  mv "$W/java"/junit-platform-console-standalone-*.jar "$W/java/junit-console.jar"
fi
echo "$JAVA_HOME" > "$W/java/java-home"
. "$repo/deploy/qemu/daemon-archive.sh"
daemon_archive
