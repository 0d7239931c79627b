package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.rdmablock.target.config.ConfigKeys.Key;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key table itself: every key declared is in it once, in a known table, with words for its messages. */
class ConfigKeysTest {
    @Test
    void everyDeclaredKeyIsListedOnce() throws IllegalAccessException {
        List<Key<?>> declared = new ArrayList<>();
        for (Field f : ConfigKeys.class.getDeclaredFields()) {
            if (f.getType() == Key.class && Modifier.isStatic(f.getModifiers())) {
                declared.add((Key<?>) f.get(null));
            }
        }
        assertEquals(51, declared.size());
        assertTrue(ConfigKeys.ALL.containsAll(declared), "declared but not in ALL: " + declared);
        assertEquals(declared.size(), ConfigKeys.ALL.size());
        assertEquals(ConfigKeys.ALL.size(), ConfigKeys.ALL.stream().map(Key::fullName).distinct().count(),
                "a key named twice");
    }

    @Test
    void everyKeyHasAKnownTableADocAndWordsForWhatIsAllowed() {
        for (Key<?> key : ConfigKeys.ALL) {
            assertTrue(ConfigKeys.TABLES.contains(key.table()), key.toString());
            assertFalse(key.doc().isBlank(), key + " has no doc");
            assertFalse(key.type().allowed(null).isBlank(), key + " says nothing of what is allowed");
        }
        assertEquals(List.of("provider", "address", "port", "group"), ConfigKeys.namesOf(ConfigKeys.LISTEN));
        assertEquals(TargetConfigReader.knownKeys(), ConfigKeys.ALL.stream().map(Key::fullName).toList());
    }

    @Test
    void aTypeNarrowedByAnotherKeyRefusesInItsOwnWordsOnlyWhatItsBaseTakes() {
        ConfigKeys.Type<Integer> base = ConfigKeys.integer(64, 1024);
        ConfigKeys.Type<Integer> narrowed = base.where(n -> n > 68, "more than 68");
        assertEquals(100, narrowed.read(100L));
        assertEquals(null, narrowed.read(68L));
        assertEquals("more than 68", narrowed.allowed(68L));
        assertEquals("an integer from 64 to 1024", narrowed.allowed(63L));
        assertEquals("an integer from 64 to 1024", narrowed.allowed("x"));
    }
}
