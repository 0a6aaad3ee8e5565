-- Whether each extension is enabled, as a person last set it on the Extensions page (or over REST,
-- tRPC, modexctl); applied when the extension registers at start-up. No row: the extension's default.
CREATE TABLE "extension_settings" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" DATETIME NOT NULL
);
