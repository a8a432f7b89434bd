-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Event" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "slug" TEXT,
    "desiredSlug" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "excerpt" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'publish',
    "password" TEXT,
    "authorId" INTEGER,
    "publishedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "postDate" TEXT,
    "modifiedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startsAt" DATETIME NOT NULL,
    "endsAt" DATETIME NOT NULL,
    "localStart" TEXT NOT NULL,
    "localEnd" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "allDay" BOOLEAN NOT NULL DEFAULT false,
    "cost" TEXT NOT NULL DEFAULT '',
    "currencySymbol" TEXT NOT NULL DEFAULT '',
    "currencyCode" TEXT NOT NULL DEFAULT '',
    "currencyPosition" TEXT NOT NULL DEFAULT '',
    "website" TEXT NOT NULL DEFAULT '',
    "showMap" BOOLEAN NOT NULL DEFAULT false,
    "showMapLink" BOOLEAN NOT NULL DEFAULT false,
    "hideFromListings" BOOLEAN NOT NULL DEFAULT false,
    "sticky" BOOLEAN NOT NULL DEFAULT false,
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "postParentId" INTEGER,
    "imageId" INTEGER,
    "eventStatus" TEXT NOT NULL DEFAULT 'scheduled',
    "eventStatusReason" TEXT NOT NULL DEFAULT '',
    "revision" INTEGER NOT NULL DEFAULT 0,
    "attendanceMode" TEXT NOT NULL DEFAULT 'offline',
    "onlineUrl" TEXT NOT NULL DEFAULT '',
    "recurrence" TEXT,
    "originalStart" DATETIME,
    "isException" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Event_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Event_postParentId_fkey" FOREIGN KEY ("postParentId") REFERENCES "Event" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Event_imageId_fkey" FOREIGN KEY ("imageId") REFERENCES "Media" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Event" ("allDay", "attendanceMode", "authorId", "cost", "currencyCode", "currencyPosition", "currencySymbol", "description", "desiredSlug", "endsAt", "eventStatus", "eventStatusReason", "excerpt", "featured", "hideFromListings", "id", "imageId", "localEnd", "localStart", "modifiedAt", "onlineUrl", "password", "postDate", "postParentId", "publishedAt", "revision", "showMap", "showMapLink", "slug", "startsAt", "status", "sticky", "timezone", "title", "website") SELECT "allDay", "attendanceMode", "authorId", "cost", "currencyCode", "currencyPosition", "currencySymbol", "description", "desiredSlug", "endsAt", "eventStatus", "eventStatusReason", "excerpt", "featured", "hideFromListings", "id", "imageId", "localEnd", "localStart", "modifiedAt", "onlineUrl", "password", "postDate", "postParentId", "publishedAt", "revision", "showMap", "showMapLink", "slug", "startsAt", "status", "sticky", "timezone", "title", "website" FROM "Event";
DROP TABLE "Event";
ALTER TABLE "new_Event" RENAME TO "Event";
CREATE UNIQUE INDEX "Event_slug_key" ON "Event"("slug");
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings", "password", "featured", "eventStatus", "attendanceMode", "authorId");
CREATE INDEX "Event_localStart_id_idx" ON "Event"("localStart", "id");
CREATE INDEX "Event_localEnd_idx" ON "Event"("localEnd");
CREATE INDEX "Event_startsAt_idx" ON "Event"("startsAt");
CREATE INDEX "Event_endsAt_idx" ON "Event"("endsAt");
CREATE INDEX "Event_featured_localStart_idx" ON "Event"("featured", "localStart", "id", "status", "localEnd", "hideFromListings", "password");
CREATE INDEX "Event_postParentId_idx" ON "Event"("postParentId");
CREATE INDEX "Event_publishedAt_id_idx" ON "Event"("publishedAt", "id");
CREATE UNIQUE INDEX "Event_postParentId_originalStart_key" ON "Event"("postParentId", "originalStart");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
