-- AlterTable
ALTER TABLE "ChangeLog" ADD COLUMN "eventId" INTEGER;

-- CreateTable
CREATE TABLE "WebhookHeldToken" (
    "endpointId" INTEGER NOT NULL,
    "attendeeId" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("endpointId", "attendeeId"),
    CONSTRAINT "WebhookHeldToken_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "WebhookHeldToken_attendeeId_fkey" FOREIGN KEY ("attendeeId") REFERENCES "Attendee" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookEndpoint" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabledReason" TEXT,
    "cursor" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "claimedBy" TEXT,
    "claimedUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "personalData" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_WebhookEndpoint" ("claimedBy", "claimedUntil", "createdAt", "cursor", "description", "disabledReason", "enabled", "events", "failures", "id", "nextAttemptAt", "secret", "url") SELECT "claimedBy", "claimedUntil", "createdAt", "cursor", "description", "disabledReason", "enabled", "events", "failures", "id", "nextAttemptAt", "secret", "url" FROM "WebhookEndpoint";
DROP TABLE "WebhookEndpoint";
ALTER TABLE "new_WebhookEndpoint" RENAME TO "WebhookEndpoint";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "WebhookHeldToken_attendeeId_idx" ON "WebhookHeldToken"("attendeeId");

-- CreateIndex
CREATE INDEX "WebhookHeldToken_expiresAt_idx" ON "WebhookHeldToken"("expiresAt");
