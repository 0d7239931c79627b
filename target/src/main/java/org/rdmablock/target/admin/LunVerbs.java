package org.rdmablock.target.admin;

import com.fasterxml.jackson.databind.JsonNode;
import org.rdmablock.target.config.ConfigException;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;
import org.rdmablock.target.config.TargetConfigWriter;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The parameters of the management socket's changing verbs, made into the configuration they ask for: a LUN added
 * ({@code lun.add}, its keys those of a {@code [[lun]]} table), removed, resized, its read-only flag or allowed
 * initiators set, or a whole configuration given as TOML ({@code apply}). Each returns the running configuration with
 * the change; {@code RunningConfiguration} checks and applies it. A wrong parameter is an
 * {@link IllegalArgumentException} whose message names it (the endpoint answers it as invalid params).
 */
final class LunVerbs {
    private LunVerbs() {
    }

    /** {@code params.number}: the LUN a verb is about. */
    static int number(final JsonNode params) {
        final JsonNode number = params.path("number");
        if (!number.canConvertToInt() || !number.isIntegralNumber()) {
            throw new IllegalArgumentException("give the LUN: {\"number\": 0 to " + LunConfig.MAX_NUMBER + "}");
        }
        return number.asInt();
    }

    /** A boolean parameter, false when absent. */
    static boolean flag(final JsonNode params, final String name) {
        final JsonNode value = params.path(name);
        if (!value.isMissingNode() && !value.isBoolean()) {
            throw new IllegalArgumentException(name + " is true or false, not " + value);
        }
        return value.asBoolean(false);
    }

    /**
     * {@code lun.add}: {@code params.lun} holds the keys of a {@code [[lun]]} table ({@code number}, {@code backend},
     * {@code path}, {@code size}, ...), read by the config reader with every check of the file (relative paths resolve
     * against the config file's folder); the number must be free.
     */
    static TargetConfig add(final TargetConfig running, final JsonNode params, final Path baseDirectory) {
        final JsonNode keys = params.path("lun");
        if (!keys.isObject()) {
            throw new IllegalArgumentException("lun.add takes {\"lun\": {the keys of a [[lun]] table}}, e.g. {\"lun\":"
                    + " {\"number\": 1, \"backend\": \"file\", \"path\": \"lun1.img\", \"create\": true, \"size\": \"1GiB\"}}");
        }
        final StringBuilder toml = new StringBuilder("[[lun]]\n");
        for (final Map.Entry<String, JsonNode> key : keys.properties()) {
            toml.append(key.getKey()).append(" = ").append(toml(key.getKey(), key.getValue())).append('\n');
        }
        final LunConfig added;
        try {
            final List<LunConfig> read = TargetConfigReader.read(toml.toString(), "lun add", baseDirectory,
                    TargetConfigReader.Storage.CHECKED).luns();
            added = read.getFirst();
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (running.luns().stream().anyMatch(l -> l.number() == added.number())) {
            throw new IllegalArgumentException("LUN " + added.number() + " exists already: remove it first, or change it"
                    + " with lun resize / lun set");
        }
        final List<LunConfig> luns = new ArrayList<>(running.luns());
        luns.add(added);
        return running.withLuns(luns);
    }

    /** A JSON value as the TOML value of the same key: strings quoted, numbers and booleans as they are, arrays of those. */
    private static String toml(final String key, final JsonNode value) {
        if (value.isTextual()) {
            return TargetConfigWriter.string(value.asText());
        }
        if (value.isNumber() || value.isBoolean()) {
            return value.asText();
        }
        if (value.isArray()) {
            final List<String> items = new ArrayList<>();
            value.forEach(item -> items.add(toml(key, item)));
            return "[" + String.join(", ", items) + "]";
        }
        throw new IllegalArgumentException(key + " is a string, a number, a boolean or an array of them, not " + value);
    }

    /** {@code lun.remove}: the LUN leaves the configuration. */
    static TargetConfig remove(final TargetConfig running, final JsonNode params) {
        final LunConfig lun = lun(running, params);
        return running.withLuns(running.luns().stream().filter(l -> l != lun).toList());
    }

    /** {@code lun.resize}: {@code params.size}, bytes or a size string ("2GiB"); shrinking also needs {@code force}. */
    static TargetConfig resize(final TargetConfig running, final JsonNode params) {
        final LunConfig lun = lun(running, params);
        final JsonNode size = params.path("size");
        final long bytes;
        if (size.isIntegralNumber() && size.canConvertToLong()) {
            bytes = size.asLong();
        } else if (size.isTextual()) {
            bytes = Quantities.parseSize(size.asText()); // its message names the forms it takes
        } else {
            throw new IllegalArgumentException("lun.resize takes {\"number\": N, \"size\": \"2GiB\"} (bytes, or "
                    + Quantities.SIZE_FORMS + ")");
        }
        return replaced(running, lun, lun.withSize(bytes));
    }

    /**
     * {@code lun.set}: {@code params.read_only} (true or false) and {@code params.allowed_initiators} (port ids, 32 hex
     * digits each; empty: any), either or both.
     */
    static TargetConfig set(final TargetConfig running, final JsonNode params) {
        final LunConfig lun = lun(running, params);
        LunConfig changed = lun;
        if (params.has("read_only")) {
            changed = changed.withReadOnly(flag(params, "read_only"));
        }
        if (params.has("allowed_initiators")) {
            final JsonNode given = params.get("allowed_initiators");
            if (!given.isArray()) {
                throw new IllegalArgumentException("allowed_initiators is an array of initiator port ids, 32 hex digits"
                        + " each ([] for any)");
            }
            final List<InitiatorPortId> ids = new ArrayList<>();
            given.forEach(id -> ids.add(InitiatorPortId.parse(id.asText())));
            changed = changed.withAllowedInitiators(ids);
        }
        if (changed == lun) {
            throw new IllegalArgumentException("lun.set takes read_only, allowed_initiators or both");
        }
        return replaced(running, lun, changed);
    }

    /**
     * {@code apply}: {@code params.toml}, a whole configuration, read as the daemon reads its file; its relative paths
     * resolve against {@code params.directory} (the folder of the file it came from) when given.
     */
    static TargetConfig desired(final JsonNode params, final Path baseDirectory) {
        final JsonNode toml = params.path("toml");
        if (!toml.isTextual()) {
            throw new IllegalArgumentException("apply takes {\"toml\": \"the configuration's text\", \"name\": \"where it"
                    + " came from\"}");
        }
        try {
            final Path base = params.path("directory").isTextual() ? Path.of(params.get("directory").asText())
                    : baseDirectory;
            return TargetConfigReader.read(toml.asText(), params.path("name").asText("apply"), base,
                    TargetConfigReader.Storage.CHECKED);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static LunConfig lun(final TargetConfig running, final JsonNode params) {
        final int number = number(params);
        return running.luns().stream().filter(l -> l.number() == number).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no LUN " + number + "; the LUNs are "
                        + running.luns().stream().map(LunConfig::number).toList()));
    }

    private static TargetConfig replaced(final TargetConfig running, final LunConfig before, final LunConfig after) {
        return running.withLuns(running.luns().stream().map(l -> l == before ? after : l).toList());
    }
}
