-- CreateTable
CREATE TABLE "ImportRecord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "source" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sourceKey" TEXT NOT NULL,
    "localId" INTEGER NOT NULL,
    "sourceHash" TEXT NOT NULL,
    "sourceData" TEXT NOT NULL DEFAULT '',
    "sourceVersion" TEXT NOT NULL DEFAULT '',
    "localHash" TEXT NOT NULL,
    "importedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ImportRun" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "source" TEXT NOT NULL,
    "sourceId" INTEGER,
    "options" TEXT NOT NULL DEFAULT '{}',
    "state" TEXT NOT NULL DEFAULT 'running',
    "checkpoint" TEXT NOT NULL DEFAULT '',
    "summary" TEXT NOT NULL DEFAULT '{}',
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "ImportRun_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ImportSource" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "type" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "options" TEXT NOT NULL DEFAULT '{}',
    "everySeconds" INTEGER NOT NULL,
    "nextRunAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "etag" TEXT,
    "lastModified" TEXT,
    "claimedBy" TEXT,
    "claimedUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ImportRecord_kind_localId_idx" ON "ImportRecord"("kind", "localId");

-- CreateIndex
CREATE UNIQUE INDEX "ImportRecord_source_kind_sourceKey_key" ON "ImportRecord"("source", "kind", "sourceKey");

-- CreateIndex
CREATE INDEX "ImportRun_source_id_idx" ON "ImportRun"("source", "id");

-- CreateIndex
CREATE INDEX "ImportRun_sourceId_id_idx" ON "ImportRun"("sourceId", "id");

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "ImportSource_type_location_key" ON "ImportSource"("type", "location");
