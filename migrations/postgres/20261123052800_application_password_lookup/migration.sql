-- DropIndex
DROP INDEX "ApplicationPassword_userId_idx";

-- AlterTable
ALTER TABLE "ApplicationPassword" ADD COLUMN     "lookup" TEXT;

-- CreateIndex
CREATE INDEX "ApplicationPassword_userId_lookup_idx" ON "ApplicationPassword"("userId", "lookup");
